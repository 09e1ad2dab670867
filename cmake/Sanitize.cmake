# SAGUARO_SANITIZE (`./dev test --sanitize`, docs/security.md): the code that reads untrusted input is compiled with
# AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer, at -O1 with line tables, and the first
# error ends the process. Every program links the sanitizer runtimes. The rest (the MLIR dialects, passes, emitter
# and driver, quantizer, probe) is compiled exactly as in build/, so ccache serves it from the plain build;
# docs/security.md says why that split.
option(SAGUARO_SANITIZE "Build the untrusted-input side with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
set(SAGUARO_SANITIZE_COMPILE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
set(SAGUARO_SANITIZE_LINK_FLAGS -fsanitize=address,undefined)
# The directories whose targets are instrumented, with every directory below them: the parsers of model files,
# tokenizers, chat templates, images and audio, the runtime and its C API, the cloud client and the server, and
# their unit tests.
set(SAGUARO_SANITIZED_DIRS runtime-min handoff codegen/blob compiler/import compiler/tokenizer compiler/chat
    test/unit/runtime test/unit/chat test/unit/handoff test/unit/frontends)
if(SAGUARO_SANITIZE)
  add_link_options(${SAGUARO_SANITIZE_LINK_FLAGS})
endif()

# saguaro_sanitize_directory(DIR): the sanitizer flags on every compiled target of DIR and the directories below it.
function(saguaro_sanitize_directory dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      target_compile_options(${target} PRIVATE ${SAGUARO_SANITIZE_COMPILE_FLAGS} -O1 -g1)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    saguaro_sanitize_directory(${sub})
  endforeach()
endfunction()

# Called once every directory has been added.
function(saguaro_sanitize_targets)
  if(SAGUARO_SANITIZE)
    foreach(dir ${SAGUARO_SANITIZED_DIRS})
      if(EXISTS ${CMAKE_SOURCE_DIR}/${dir}/CMakeLists.txt)
        saguaro_sanitize_directory(${CMAKE_SOURCE_DIR}/${dir})
      endif()
    endforeach()
  endif()
endfunction()
