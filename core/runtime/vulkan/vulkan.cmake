# The Vulkan compute backend, added to graphlens_core when GRAPHLENS_VULKAN is ON: host code, and the
# GLSL compute shaders compiled to SPIR-V by glslc at build time (checked by spirv-val) and embedded
# into the binary as uint32_t arrays (embed_spirv.cmake), so nothing is read from disk at run time.
find_program(GLSLC_EXECUTABLE glslc REQUIRED)
find_program(SPIRV_VAL_EXECUTABLE spirv-val)

set(vulkan_dir ${CMAKE_CURRENT_SOURCE_DIR}/runtime/vulkan)
file(GLOB vulkan_shaders CONFIGURE_DEPENDS ${vulkan_dir}/shaders/*.comp)
file(GLOB vulkan_shader_includes CONFIGURE_DEPENDS ${vulkan_dir}/shaders/*.glsl)
set(spirv_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv)
# The activation codes and defaults the shaders use (#include "activation_codes.glsl"), generated from
# core/graph/activations.def by a small host tool built first, so the table is the only place they live.
add_executable(graphlens_activation_glsl ${vulkan_dir}/tools/activation_glsl.cpp)
target_include_directories(graphlens_activation_glsl PRIVATE ${PROJECT_SOURCE_DIR})
set(shader_include_dir ${CMAKE_CURRENT_BINARY_DIR}/shader_include)
set(activation_glsl ${shader_include_dir}/activation_codes.glsl)
add_custom_command(
  OUTPUT ${activation_glsl}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${shader_include_dir}
  COMMAND graphlens_activation_glsl ${activation_glsl}
  DEPENDS graphlens_activation_glsl ${PROJECT_SOURCE_DIR}/core/graph/activations.def
  COMMENT "Generating activation_codes.glsl from activations.def"
  VERBATIM)
set(spirv_files)
foreach(shader ${vulkan_shaders})
  get_filename_component(stem ${shader} NAME_WE)
  set(spv ${spirv_dir}/${stem}.spv)
  set(validate)
  if(SPIRV_VAL_EXECUTABLE)
    set(validate COMMAND ${SPIRV_VAL_EXECUTABLE} --target-env vulkan1.1 ${spv})
  endif()
  add_custom_command(
    OUTPUT ${spv}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${spirv_dir}
    COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.1 -O -I ${vulkan_dir}/shaders -I ${shader_include_dir} -o ${spv} ${shader}
    ${validate}
    DEPENDS ${shader} ${vulkan_shader_includes} ${activation_glsl}
    COMMENT "Compiling shader ${stem}.comp to SPIR-V"
    VERBATIM)
  list(APPEND spirv_files ${spv})
endforeach()

set(spirv_source ${CMAKE_CURRENT_BINARY_DIR}/vulkan_spirv_blobs.cpp)
add_custom_command(
  OUTPUT ${spirv_source}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${spirv_source} "-DINPUTS=${spirv_files}"
          -P ${vulkan_dir}/embed_spirv.cmake
  DEPENDS ${spirv_files} ${vulkan_dir}/embed_spirv.cmake
  COMMENT "Embedding SPIR-V shaders"
  VERBATIM)

file(GLOB vulkan_sources CONFIGURE_DEPENDS ${vulkan_dir}/*.cpp)
target_sources(graphlens_core PRIVATE ${vulkan_sources} ${spirv_source})
# Vulkan structs are written `VkXCreateInfo info{VK_STRUCTURE_TYPE_...}`: the rest zero on purpose.
set_source_files_properties(${vulkan_sources} PROPERTIES COMPILE_OPTIONS "-Wno-missing-field-initializers")
target_link_libraries(graphlens_core PRIVATE Vulkan::Vulkan)
target_compile_definitions(graphlens_core PRIVATE GRAPHLENS_HAVE_VULKAN=1)
