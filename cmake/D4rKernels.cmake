# Native kernel families (docs/kernel-sets.md, "Where kernels live"): each family's kernels live in
# src/kernels/<family>/{ptx,cpu,hip,cuda}, and its src/kernels/<family>/CMakeLists.txt calls d4r_kernel_family.
# The build generates the native kernel set of every family into one kernel root, D4R_NATIVE_ROOT_IN_BUILD
# (build/share/d4r/native: the place an installation has it, <prefix>/share/d4r/native, relative to bin/).

set(D4R_NATIVE_ROOT_IN_BUILD ${CMAKE_BINARY_DIR}/share/d4r/native)

# d4r_kernel_family(NAME <family> PTX <file.ptx> [EMBED <template.cpp.in>]
#                   [KERNELS <name>... CPU_SOURCES <file.cpp>... [CPU_LIBS <target>...]])
#  * EMBED: the PTX becomes a byte array in a generated source, configured from the template with
#    @D4R_PTX_BYTES@ (the file's bytes as "0x2f,0x2f,..."); CMake configures again when the PTX or the template
#    changes. The library that serves the PTX adds the source (d4r_kernel_family_embedded_source).
#  * CPU_SOURCES: the family's native CPU kernels (registered in runtime/native/cpu_registry.h at static
#    initialisation), built as d4r_kernels_<family>_cpu and linked whole into libd4rcuda, with CPU_LIBS.
#  * KERNELS: the .entry names of the PTX that the native kernels replace. d4r_native_kernel_sets() writes
#    them into the cpu set: NAME.cpu each and a `NAME HASH` line in d4r-kernels.txt for the hash of the PTX
#    (a name the PTX does not define fails the build), and the same into the accuracy set accuracy/cpu. A name
#    given as NAME:VARIANT is served in the fast set by the registry's NAME@VARIANT (NAME.cpu says `1 VARIANT`)
#    and in the accuracy set by NAME. KERNELS needs CPU_SOURCES: hip/ and cuda/ code objects
#    (.hsaco, .cubin) are not built by the project yet.
# Relative paths are relative to the calling CMakeLists.txt.
function(d4r_kernel_family)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PTX;EMBED" "KERNELS;CPU_SOURCES;CPU_LIBS")
    if(NOT arg_NAME OR NOT arg_PTX OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "d4r_kernel_family: NAME and PTX are required (unparsed: ${arg_UNPARSED_ARGUMENTS})")
    endif()
    if(arg_KERNELS AND NOT arg_CPU_SOURCES)
        message(FATAL_ERROR "d4r_kernel_family(${arg_NAME}): KERNELS without CPU_SOURCES: only cpu sets are "
                            "generated so far")
    endif()
    get_filename_component(ptx ${arg_PTX} ABSOLUTE)
    if(NOT EXISTS ${ptx})
        message(FATAL_ERROR "d4r_kernel_family(${arg_NAME}): ${ptx} does not exist")
    endif()
    set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_FAMILIES ${arg_NAME})

    if(arg_EMBED)
        get_filename_component(template ${arg_EMBED} ABSOLUTE)
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ptx} ${template})
        file(READ ${ptx} hex HEX)
        string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," D4R_PTX_BYTES "${hex}")
        set(embedded ${CMAKE_CURRENT_BINARY_DIR}/embedded_ptx.cpp)
        configure_file(${template} ${embedded} @ONLY)
        set_property(GLOBAL PROPERTY D4R_KERNEL_FAMILY_${arg_NAME}_EMBEDDED ${embedded})
    endif()

    if(arg_CPU_SOURCES)
        set(lib d4r_kernels_${arg_NAME}_cpu)
        add_library(${lib} STATIC ${arg_CPU_SOURCES})
        target_link_libraries(${lib} PUBLIC d4r_runtime ${arg_CPU_LIBS})
        # Nothing references the registrations by name: keep every object.
        target_link_libraries(d4rcuda PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
    endif()
    if(arg_KERNELS)
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_ARGS --family ${arg_NAME} ${ptx} ${arg_KERNELS})
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_PTX ${ptx})
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_KERNELS ${arg_KERNELS})
    endif()
endfunction()

# d4r_kernel_family_embedded_source(<family> <var>): the generated source holding the family's PTX (EMBED).
function(d4r_kernel_family_embedded_source family var)
    get_property(embedded GLOBAL PROPERTY D4R_KERNEL_FAMILY_${family}_EMBEDDED)
    if(NOT embedded)
        message(FATAL_ERROR "d4r_kernel_family_embedded_source: kernel family '${family}' embeds no PTX "
                            "(d4r_kernel_family(NAME ${family} ... EMBED ...) must come first)")
    endif()
    set(${var} ${embedded} PARENT_SCOPE)
endfunction()

# d4r_native_kernel_sets(): once, after every d4r_kernel_family. The build step (target d4r_native_kernel_sets,
# which libd4rcuda depends on) that runs d4r_make_kernel_set to write ${D4R_NATIVE_ROOT_IN_BUILD}/cpu (the fast
# set) and accuracy/cpu (the accuracy set, marked): one d4r-kernels.txt for every family's KERNELS, and
# NAME.cpu per kernel.
function(d4r_native_kernel_sets)
    get_property(args GLOBAL PROPERTY D4R_KERNEL_SET_CPU_ARGS)
    get_property(ptx GLOBAL PROPERTY D4R_KERNEL_SET_CPU_PTX)
    get_property(kernels GLOBAL PROPERTY D4R_KERNEL_SET_CPU_KERNELS)
    if(NOT args)
        return()
    endif()
    set(dir ${D4R_NATIVE_ROOT_IN_BUILD}/cpu)
    set(accuracy ${D4R_NATIVE_ROOT_IN_BUILD}/accuracy/cpu)
    set(outputs ${dir}/d4r-kernels.txt ${accuracy}/d4r-kernels.txt ${accuracy}/d4r-accuracy.txt)
    foreach(k ${kernels})
        string(REGEX REPLACE ":.*" "" k ${k}) # NAME:VARIANT
        list(APPEND outputs ${dir}/${k}.cpu ${accuracy}/${k}.cpu)
    endforeach()
    add_custom_command(OUTPUT ${outputs}
        COMMAND d4r_make_kernel_set cpu ${dir} --accuracy ${accuracy} ${args}
        DEPENDS d4r_make_kernel_set ${ptx}
        COMMENT "native kernel set ${dir}" VERBATIM)
    add_custom_target(d4r_native_kernel_sets ALL DEPENDS ${outputs})
    add_dependencies(d4rcuda d4r_native_kernel_sets)
endfunction()
