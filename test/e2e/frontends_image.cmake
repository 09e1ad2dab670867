# `saguaro features image` against Pillow's decode references in ../shared/data/images, the
# independent numpy oracle test/reference/image_reference.py and Pillow itself, plus bad inputs.
saguaro_e2e(e2e_features_image test_features_image.py)
# Gemma 4's preprocessing against test/reference/gemma4_image_reference.py (Pillow), plus its bad inputs.
saguaro_e2e(e2e_gemma4_image test_gemma4_image.py)
