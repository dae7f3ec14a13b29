# The Vulkan compute backend, added to graphlens_core when GRAPHLENS_VULKAN is ON: host code, and the
# GLSL compute shaders compiled to SPIR-V by glslc at build time (checked by spirv-val) and embedded
# into the binary as uint32_t arrays (embed_spirv.cmake), so nothing is read from disk at run time.
find_program(GLSLC_EXECUTABLE glslc REQUIRED)
find_program(SPIRV_VAL_EXECUTABLE spirv-val)

set(vulkan_dir ${CMAKE_CURRENT_SOURCE_DIR}/runtime/vulkan)
file(GLOB vulkan_shaders CONFIGURE_DEPENDS ${vulkan_dir}/shaders/*.comp)
file(GLOB vulkan_shader_includes CONFIGURE_DEPENDS ${vulkan_dir}/shaders/*.glsl)
set(spirv_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv)
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
    COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.1 -O -I ${vulkan_dir}/shaders -o ${spv} ${shader}
    ${validate}
    DEPENDS ${shader} ${vulkan_shader_includes}
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
