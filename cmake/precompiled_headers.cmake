# Precompiled headers for every target: most of a build's compile time is spent parsing the same
# standard, protobuf and GoogleTest headers in each of ~600 files (gcc -ftime-report: 54-60% of a
# checker file is parsing). Two precompiled headers are built once per build directory and reused
# by every target: one with the libraries' flags (-O2, instrumented in the sanitizer build) and one
# with the tests' (-O1, gtest; dst_test_flags). gcc refuses a precompiled header compiled with other
# options and then reads the headers as text, so a target whose flags differ still builds, only
# without the saving. Only third-party headers are in them: no target gains a dependency on our
# code (the layering of the folders is unchanged). An include a file forgot can go unnoticed when a
# forced header or, in ci/build.sh's unity batches, an earlier file of the batch provides it;
# `cmake -DDST_PCH=OFF -DCMAKE_UNITY_BUILD=OFF` builds every file on its own includes (not part of
# CI). Off for the libFuzzer build (clang, coverage flags per library): -DDST_PCH=OFF turns them off
# anywhere.

set(DST_PCH_HEADERS
  <algorithm> <array> <cstdint> <cstring> <deque> <functional> <map> <memory> <optional> <set>
  <string> <string_view> <unordered_map> <utility> <variant> <vector>
  <google/protobuf/arena.h> <google/protobuf/arenastring.h> <google/protobuf/extension_set.h>
  <google/protobuf/generated_enum_reflection.h> <google/protobuf/generated_message_bases.h>
  <google/protobuf/generated_message_reflection.h> <google/protobuf/generated_message_util.h>
  <google/protobuf/io/coded_stream.h> <google/protobuf/message.h>
  <google/protobuf/metadata_lite.h> <google/protobuf/repeated_field.h>
  <google/protobuf/unknown_field_set.h>)

# The targets of `dir` and of every folder below it.
function(dst_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    dst_targets_below(${sub} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(dst_precompile_headers_everywhere)
  if(NOT DST_PCH OR DST_FUZZ)
    return()
  endif()
  set(stub ${PROJECT_BINARY_DIR}/dst_pch_stub.cc)
  file(WRITE ${stub} "// The translation unit the precompiled headers are built for.\n")
  add_library(dst_pch_lib OBJECT ${stub})
  target_precompile_headers(dst_pch_lib PRIVATE ${DST_PCH_HEADERS})
  add_library(dst_pch_test OBJECT ${stub})
  target_link_libraries(dst_pch_test PRIVATE GTest::gtest)  # protobuf's headers are in /usr/include
  dst_test_flags(dst_pch_test)
  target_precompile_headers(dst_pch_test PRIVATE ${DST_PCH_HEADERS} <gtest/gtest.h>)
  dst_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(t MATCHES "^dst_pch_" OR NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(is_test ${t} DST_TEST_CODE)
    if(is_test)
      target_precompile_headers(${t} REUSE_FROM dst_pch_test)
    else()
      target_precompile_headers(${t} REUSE_FROM dst_pch_lib)
    endif()
  endforeach()
endfunction()
