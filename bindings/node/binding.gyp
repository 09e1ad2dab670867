# The addon build/Release/saguaro.node (node-gyp, run by scripts/build.js when the package installs).
{
  "targets": [{
    "target_name": "saguaro",
    "sources": ["src/addon.cpp", "src/audio_stream.cpp", "src/library.cpp", "src/model.cpp"],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
    # N-API 8: Node.js 18 (Debian 12's nodejs) and later.
    "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"],
    "cflags_cc": ["-std=c++17"],
    "libraries": ["-ldl"]
  }]
}
