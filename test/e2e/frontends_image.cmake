# `saguaro features image` against Pillow's decode references in ../shared/data/images, the
# independent numpy oracle test/reference/image_reference.py and Pillow itself, plus bad inputs.
saguaro_e2e(e2e_features_image test_features_image.py)
