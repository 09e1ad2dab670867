"""A bundle's shared library (BUNDLE/build/libsaguaro.so, built by the bundle's CMake) and the C API's prototypes
(runtime-min/include/saguaro/saguaro.h)."""
import ctypes
import os
import subprocess
import threading

from .errors import SaguaroError

# void (*token_callback)(const char* token, uint32_t token_id, void* user_data)
TOKEN_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_void_p)

_loaded = {}  # library path -> ctypes.CDLL; dlopen would return the same handle anyway
_loading = threading.Lock()  # one build and one load per library, whichever thread asks first


def library_path(bundle):
    return os.path.join(bundle, "build", "libsaguaro.so")


def _build(bundle):
    """Builds the bundle with CMake, as `saguaro run` does (into BUNDLE/build, log in BUNDLE/build.log)."""
    log = os.path.join(bundle, "build.log")
    build = os.path.join(bundle, "build")
    steps = (["cmake", "-S", bundle, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
             ["cmake", "--build", build, "--target", "saguaro_shared"])
    with open(log, "ab") as out:
        for cmd in steps:
            try:
                done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT)
            except OSError as e:
                raise SaguaroError(f"{bundle}: cannot build the bundle's library: {cmd[0]}: {e.strerror}") from None
            if done.returncode != 0:
                raise SaguaroError(f"{bundle}: building the bundle's library failed (see {log}); a bundle compiled "
                                   "before libsaguaro.so existed needs compiling again (saguaro compile)")


def load(bundle):
    """The C API of the bundle directory `bundle`, building its library first when it is missing."""
    if not os.path.isdir(bundle):
        what = "not a directory" if os.path.exists(bundle) else "no such bundle directory"
        raise SaguaroError(f"{bundle}: {what} (saguaro compile MODEL -o BUNDLE_DIR makes one)")
    path = os.path.realpath(library_path(bundle))
    with _loading:
        if path not in _loaded:
            _loaded[path] = _open(bundle, path)
        return _loaded[path]


def _open(bundle, path):
    """Loads (after building, when missing) the library at `path` and declares the C API's prototypes."""
    if not os.path.exists(path):
        if not os.path.exists(os.path.join(bundle, "CMakeLists.txt")):
            raise SaguaroError(f"{bundle}: not a bundle directory (no CMakeLists.txt)")
        _build(bundle)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise SaguaroError(f"{path}: cannot load: {e}") from None
    try:
        _declare(lib)
    except AttributeError as e:  # a library of an older saguaro lacks a function
        raise SaguaroError(f"{path}: {e}; compile the bundle again (saguaro compile)") from None
    return lib


def _declare(lib):
    """The C API's prototypes (saguaro/saguaro.h) on `lib`; AttributeError names a missing function."""
    lib.saguaro_init.argtypes = [ctypes.c_char_p]
    lib.saguaro_init.restype = ctypes.c_void_p
    lib.saguaro_complete.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_size_t, TOKEN_CALLBACK, ctypes.c_void_p]
    lib.saguaro_complete.restype = ctypes.c_int
    lib.saguaro_stop.argtypes = [ctypes.c_void_p]
    lib.saguaro_stop.restype = None
    lib.saguaro_destroy.argtypes = [ctypes.c_void_p]
    lib.saguaro_destroy.restype = None
    lib.saguaro_last_error.argtypes = []
    lib.saguaro_last_error.restype = ctypes.c_char_p
    lib.saguaro_audio_begin.argtypes = [ctypes.c_void_p]
    lib.saguaro_audio_begin.restype = ctypes.c_void_p
    lib.saguaro_audio_push.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]
    lib.saguaro_audio_push_int16.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16), ctypes.c_size_t]
    lib.saguaro_audio_end.argtypes = [ctypes.c_void_p]
    lib.saguaro_audio_id.argtypes = [ctypes.c_void_p]
    lib.saguaro_audio_id.restype = ctypes.c_long
    lib.saguaro_audio_destroy.argtypes = [ctypes.c_void_p]
    lib.saguaro_audio_destroy.restype = None


def last_error(lib):
    """saguaro_last_error() of the calling thread (the C API keeps one per thread)."""
    return lib.saguaro_last_error().decode("utf-8", errors="replace")
