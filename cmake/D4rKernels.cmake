# Native kernel families (docs/kernel-sets.md, "Where kernels live"): each family's kernels live in
# src/kernels/<family>/{ptx,cpu,hip,cuda}, and its src/kernels/<family>/CMakeLists.txt calls d4r_kernel_family.
# The build generates the native kernel set of every family into one kernel root, D4R_NATIVE_ROOT_IN_BUILD
# (build/share/d4r/native: the place an installation has it, <prefix>/share/d4r/native, relative to bin/).

set(D4R_NATIVE_ROOT_IN_BUILD ${CMAKE_BINARY_DIR}/share/d4r/native)
# Test-only code-object sets (never selected, installed or packaged): the gfx12 layout shim on gfx1100 and the
# wmmaf16 measurement set.
set(D4R_NATIVE_TEST_ROOT_IN_BUILD ${CMAKE_BINARY_DIR}/share/d4r/native-test)

# AMD code objects (.hsaco) of the families' hip/ kernels, compiled by clang-19 without HIP's headers for these
# targets. Built once, in the default preset: the asan and fuzz presets turn the option off (CMakePresets.json),
# and it defaults off whenever D4R_SANITIZE or D4R_FUZZ is on.
set(D4R_AMD_ARCHS gfx1100 gfx1101 gfx1102 gfx1103 gfx1200 gfx1201)
find_program(D4R_AMD_CLANG NAMES clang-19 DOC "clang with the AMDGPU target, for the .hsaco kernel sets")
set(amd_found OFF)
if(D4R_AMD_CLANG)
    set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/d4r-amd-probe.hip)
    file(WRITE ${probe} "extern \"C\" __attribute__((global)) void d4r_probe() {}\n")
    execute_process(COMMAND ${D4R_AMD_CLANG} -x hip --offload-arch=gfx1100 --offload-device-only --no-gpu-bundle-output
                            -nogpulib -nogpuinc -O1 ${probe} -o ${probe}.hsaco
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
        set(amd_found ON)
    endif()
endif()
set(amd_default OFF)
if(amd_found AND NOT D4R_SANITIZE AND NOT D4R_FUZZ)
    set(amd_default ON)
endif()
option(D4R_BUILD_AMD_KERNELS "Build the AMD (.hsaco) kernel sets with clang-19 (default: on when it compiles for gfx1100)"
       ${amd_default})
if(D4R_BUILD_AMD_KERNELS AND NOT amd_found)
    message(FATAL_ERROR "D4R_BUILD_AMD_KERNELS is on, but ${D4R_AMD_CLANG} does not compile HIP for gfx1100 "
                        "(clang-19 with the AMDGPU target: apt-get install clang-19)")
elseif(D4R_BUILD_AMD_KERNELS)
    message(STATUS "AMD kernel sets: ${D4R_AMD_ARCHS} with ${D4R_AMD_CLANG}")
elseif(NOT amd_found)
    message(STATUS "AMD kernel sets: not built: no clang-19 that compiles HIP for gfx1100 "
                   "(apt-get install clang-19; then configure again)")
else()
    message(STATUS "AMD kernel sets: not built (D4R_BUILD_AMD_KERNELS=OFF)")
endif()

# d4r_kernel_family(NAME <family> PTX <file.ptx>... [EMBED <template.cpp.in>]
#                   [KERNELS <name>... CPU_SOURCES <file.cpp>... [CPU_LIBS <target>...]])
#  * PTX: the family's PTX files, one or more (the refine family has two: a driver compiles a module whole, so
#    an entry that needs a newer .target than the others is a file of its own). Each kernel's manifest lines
#    carry the hash of every module, of any of these files, that defines it.
#  * EMBED: each PTX file becomes a byte array in a generated source embedded_<stem>.cpp, configured from the
#    template with @D4R_PTX_BYTES@ (the file's bytes as "0x2f,0x2f,...") and @D4R_PTX_NAME@ (the file's name
#    without .ptx, e.g. for the accessor's name); CMake configures again when a PTX file or the template changes.
#    The library that serves the PTX adds the sources (d4r_kernel_family_embedded_source).
#  * CPU_SOURCES: the family's native CPU kernels (registered in runtime/native/cpu_registry.h at static
#    initialisation), built as d4r_kernels_<family>_cpu and linked whole into libd4rcuda, with CPU_LIBS.
#  * KERNELS: the .entry names of the PTX that the native kernels replace. d4r_native_kernel_sets() writes
#    them into the cpu set: NAME.cpu each and a `NAME HASH` line in d4r-kernels.txt for the hash of the PTX
#    (a name no PTX file of the family defines fails the build), and the same into the accuracy set
#    accuracy/cpu. A name given as NAME:VARIANT is served in the fast set by the registry's NAME@VARIANT
#    (NAME.cpu says `1 VARIANT`) and in the accuracy set by NAME. KERNELS needs CPU_SOURCES; a family's AMD and
#    NVIDIA code objects come from d4r_amd_kernels and d4r_cuda_kernels (below).
# Relative paths are relative to the calling CMakeLists.txt.
function(d4r_kernel_family)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;EMBED" "PTX;KERNELS;CPU_SOURCES;CPU_LIBS")
    if(NOT arg_NAME OR NOT arg_PTX OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "d4r_kernel_family: NAME and PTX are required (unparsed: ${arg_UNPARSED_ARGUMENTS})")
    endif()
    if(arg_KERNELS AND NOT arg_CPU_SOURCES)
        message(FATAL_ERROR "d4r_kernel_family(${arg_NAME}): KERNELS without CPU_SOURCES: only cpu sets are "
                            "generated so far")
    endif()
    set(ptx)
    foreach(file ${arg_PTX})
        get_filename_component(file ${file} ABSOLUTE)
        if(NOT EXISTS ${file} OR NOT file MATCHES "\\.ptx$")
            message(FATAL_ERROR "d4r_kernel_family(${arg_NAME}): ${file} does not exist or is not named *.ptx")
        endif()
        list(APPEND ptx ${file})
    endforeach()
    set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_FAMILIES ${arg_NAME})
    set_property(GLOBAL PROPERTY D4R_KERNEL_FAMILY_${arg_NAME}_PTX ${ptx})

    if(arg_EMBED)
        get_filename_component(template ${arg_EMBED} ABSOLUTE)
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ptx} ${template})
        set(sources)
        foreach(file ${ptx})
            get_filename_component(D4R_PTX_NAME ${file} NAME_WE)
            file(READ ${file} hex HEX)
            string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," D4R_PTX_BYTES "${hex}")
            set(embedded ${CMAKE_CURRENT_BINARY_DIR}/embedded_${D4R_PTX_NAME}.cpp)
            configure_file(${template} ${embedded} @ONLY)
            list(APPEND sources ${embedded})
        endforeach()
        set_property(GLOBAL PROPERTY D4R_KERNEL_FAMILY_${arg_NAME}_EMBEDDED ${sources})
    endif()

    if(arg_CPU_SOURCES)
        set(lib d4r_kernels_${arg_NAME}_cpu)
        add_library(${lib} STATIC ${arg_CPU_SOURCES})
        target_link_libraries(${lib} PUBLIC d4r_runtime ${arg_CPU_LIBS})
        d4r_arithmetic_library(${lib})
        # Nothing references the registrations by name: keep every object.
        target_link_libraries(d4rcuda PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
    endif()
    if(arg_KERNELS)
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_ARGS --family ${arg_NAME} ${ptx} ${arg_KERNELS})
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_PTX ${ptx})
        set_property(GLOBAL APPEND PROPERTY D4R_KERNEL_SET_CPU_KERNELS ${arg_KERNELS})
    endif()
endfunction()

# d4r_kernel_family_embedded_source(<family> <var>): the generated sources holding the family's PTX (EMBED), one per
# PTX file.
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

# d4r_amd_kernels(FAMILY <family> SOURCE <file.hip> KERNELS <name>... [DEPENDS <file>...])
# The family's AMD kernels (after its d4r_kernel_family): SOURCE is compiled once per kernel, set and target with
# -DD4R_KERNEL_SET=0 (fast) or 1 (accuracy) and -DD4R_KERNEL_ONLY=<the kernel's 1-based place in KERNELS> (the
# source keeps that kernel alone), into build/src/kernels/<family>/hsaco/<set>/<arch>/NAME.hsaco; then
# d4r_make_kernel_set hsaco writes the fast set ${D4R_NATIVE_ROOT_IN_BUILD}/<arch> and the accuracy set
# accuracy/<arch> (manifest for the family's PTX, marker last) for every arch of D4R_AMD_ARCHS, the test-only sets
# gfx1100-gfx12shim (fast, -DD4R_WMMA_GFX12_LAYOUT_SHIM=1) and gfx1100-wmmaf16 (-DD4R_KERNEL_SET=2) under
# ${D4R_NATIVE_TEST_ROOT_IN_BUILD}, and scripts/amd-resources.sh the table ${D4R_NATIVE_ROOT_IN_BUILD}/amd-resources.txt.
# For the gfx12 archs also the -fp8 sets: <arch>-fp8 (fast, -DD4R_KERNEL_SET=0 -DD4R_FP8_WMMA=1: native FP8 WMMA
# where the source uses it) and accuracy/<arch>-fp8 (the accuracy set's objects).
# Nothing when D4R_BUILD_AMD_KERNELS is off.
function(d4r_amd_kernels)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "FAMILY;SOURCE" "KERNELS;DEPENDS")
    if(NOT arg_FAMILY OR NOT arg_SOURCE OR NOT arg_KERNELS OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "d4r_amd_kernels: FAMILY, SOURCE and KERNELS are required")
    endif()
    if(NOT D4R_BUILD_AMD_KERNELS)
        return()
    endif()
    get_property(ptx GLOBAL PROPERTY D4R_KERNEL_FAMILY_${arg_FAMILY}_PTX)
    if(NOT ptx)
        message(FATAL_ERROR "d4r_amd_kernels: family ${arg_FAMILY} has no d4r_kernel_family() before it")
    endif()
    get_filename_component(source ${arg_SOURCE} ABSOLUTE)
    set(deps ${source})
    foreach(d ${arg_DEPENDS})
        get_filename_component(d ${d} ABSOLUTE)
        list(APPEND deps ${d})
    endforeach()
    set(flags -x hip --offload-device-only --no-gpu-bundle-output -nogpulib -nogpuinc -O3 -std=c++20
              -ffp-contract=off -fno-gpu-flush-denormals-to-zero -Werror -I${CMAKE_SOURCE_DIR}/src)
    set(objects ${CMAKE_CURRENT_BINARY_DIR}/hsaco)
    # Variants: set folder name, -D flags, targets.
    string(REPLACE ";" "," every_arch "${D4R_AMD_ARCHS}")
    # gfx12 targets (native FP8 WMMA) also get the -fp8 sets.
    set(fp8_archs ${D4R_AMD_ARCHS})
    list(FILTER fp8_archs INCLUDE REGEX "^gfx12")
    string(REPLACE ";" "," every_fp8_arch "${fp8_archs}")
    set(variants "fast|-DD4R_KERNEL_SET=0|${every_arch}" "accuracy|-DD4R_KERNEL_SET=1|${every_arch}"
                 "gfx12shim|-DD4R_KERNEL_SET=0 -DD4R_WMMA_GFX12_LAYOUT_SHIM=1|gfx1100"
                 "wmmaf16|-DD4R_KERNEL_SET=2|gfx1100")
    if(fp8_archs)
        list(APPEND variants "fp8|-DD4R_KERNEL_SET=0 -DD4R_FP8_WMMA=1|${every_fp8_arch}")
    endif()
    set(all_sets)
    foreach(v ${variants})
        string(REPLACE "|" ";" v "${v}")
        list(GET v 0 set_name)
        list(GET v 1 defs)
        list(GET v 2 archs)
        separate_arguments(defs)
        string(REPLACE "," ";" archs "${archs}")
        foreach(arch ${archs})
            set(index 0)
            set(outs)
            foreach(k ${arg_KERNELS})
                math(EXPR index "${index} + 1")
                set(out ${objects}/${set_name}/${arch}/${k}.hsaco)
                add_custom_command(OUTPUT ${out}
                    COMMAND ${D4R_AMD_CLANG} ${flags} --offload-arch=${arch} ${defs} -DD4R_KERNEL_ONLY=${index}
                            ${source} -o ${out}
                    DEPENDS ${deps} COMMENT "AMD ${set_name} ${arch} ${k}.hsaco" VERBATIM)
                list(APPEND outs ${out})
            endforeach()
            set(${set_name}_${arch}_objects ${outs})
        endforeach()
    endforeach()
    set(family_args --family ${arg_FAMILY} ${ptx} ${arg_KERNELS})
    set(outputs)
    foreach(arch ${D4R_AMD_ARCHS})
        set(fast ${D4R_NATIVE_ROOT_IN_BUILD}/${arch})
        set(accuracy ${D4R_NATIVE_ROOT_IN_BUILD}/accuracy/${arch})
        set(set_outputs ${fast}/d4r-kernels.txt ${accuracy}/d4r-kernels.txt ${accuracy}/d4r-accuracy.txt)
        foreach(k ${arg_KERNELS})
            list(APPEND set_outputs ${fast}/${k}.hsaco ${accuracy}/${k}.hsaco)
        endforeach()
        add_custom_command(OUTPUT ${set_outputs}
            COMMAND d4r_make_kernel_set hsaco ${fast} ${objects}/fast/${arch} --accuracy ${accuracy}
                    ${objects}/accuracy/${arch} ${family_args}
            DEPENDS d4r_make_kernel_set ${ptx} ${fast_${arch}_objects} ${accuracy_${arch}_objects}
            COMMENT "AMD kernel sets ${fast}, ${accuracy}" VERBATIM)
        list(APPEND outputs ${set_outputs})
    endforeach()
    # The -fp8 sets: the fast set built with -DD4R_FP8_WMMA=1, and the accuracy set's own objects (the exact code).
    foreach(arch ${fp8_archs})
        set(fast ${D4R_NATIVE_ROOT_IN_BUILD}/${arch}-fp8)
        set(accuracy ${D4R_NATIVE_ROOT_IN_BUILD}/accuracy/${arch}-fp8)
        set(set_outputs ${fast}/d4r-kernels.txt ${accuracy}/d4r-kernels.txt ${accuracy}/d4r-accuracy.txt)
        foreach(k ${arg_KERNELS})
            list(APPEND set_outputs ${fast}/${k}.hsaco ${accuracy}/${k}.hsaco)
        endforeach()
        add_custom_command(OUTPUT ${set_outputs}
            COMMAND d4r_make_kernel_set hsaco ${fast} ${objects}/fp8/${arch} --accuracy ${accuracy}
                    ${objects}/accuracy/${arch} ${family_args}
            DEPENDS d4r_make_kernel_set ${ptx} ${fp8_${arch}_objects} ${accuracy_${arch}_objects}
            COMMENT "AMD kernel sets ${fast}, ${accuracy}" VERBATIM)
        list(APPEND outputs ${set_outputs})
    endforeach()
    foreach(test_set gfx12shim wmmaf16)
        set(dir ${D4R_NATIVE_TEST_ROOT_IN_BUILD}/gfx1100-${test_set})
        add_custom_command(OUTPUT ${dir}/d4r-kernels.txt
            COMMAND d4r_make_kernel_set hsaco ${dir} ${objects}/${test_set}/gfx1100 ${family_args}
            DEPENDS d4r_make_kernel_set ${ptx} ${${test_set}_gfx1100_objects}
            COMMENT "AMD test kernel set ${dir}" VERBATIM)
        list(APPEND outputs ${dir}/d4r-kernels.txt)
    endforeach()
    set(table ${D4R_NATIVE_ROOT_IN_BUILD}/amd-resources.txt)
    add_custom_command(OUTPUT ${table}
        COMMAND ${CMAKE_SOURCE_DIR}/scripts/amd-resources.sh ${D4R_NATIVE_ROOT_IN_BUILD} ${D4R_NATIVE_TEST_ROOT_IN_BUILD}
                > ${table}.tmp
        COMMAND ${CMAKE_COMMAND} -E rename ${table}.tmp ${table}
        DEPENDS ${outputs} ${CMAKE_SOURCE_DIR}/scripts/amd-resources.sh
        COMMENT "AMD kernel resources ${table}" VERBATIM)
    add_custom_target(d4r_amd_kernels_${arg_FAMILY} ALL DEPENDS ${outputs} ${table})
    add_dependencies(d4r_native_kernel_sets_amd d4r_amd_kernels_${arg_FAMILY})
endfunction()

# d4r_cuda_kernels(FAMILY <family> ARCH <sm_XX> ACCURACY_SOURCE <file.cu> KERNELS <kernel>=<source.cu>...
#                  [ACCURACY <kernel>=<source.cu>...] [FAST_FLAGS <nvcc flag>...] [FAST_MATH <source.cu>...]
#                  [ARCH_SPECIFIC <source.cu>...] [DEPENDS <file>...]): a family's NVIDIA
# native kernels, built when nvcc is found (D4R_NVCC; a sanitizer build makes only the fast sources' PTX, for the
# tests). Each distinct source is compiled by nvcc (-arch=ARCH -O3, and --fmad=false, or FAST_FLAGS for the fast
# sources when given: the upscaler's fast kernel asks for -use_fast_math; a fast source listed in FAST_MATH gets
# -use_fast_math whatever FAST_FLAGS says; one in ARCH_SPECIFIC for ARCH's arch-specific target, sm_90a for sm_90, whose
# code runs on that very architecture only: Hopper's wgmma) to a cubin (and a fast source also to PTX) in
# <binary dir>/<arch>/ (global property D4R_<FAMILY>_CUDA_DIR names that folder, for tests). The fast set gets
# KERNEL.cubin = its KERNELS source's cubin, the accuracy set KERNEL.cubin = the cubin of the kernel's ACCURACY source
# if it has one, else ACCURACY_SOURCE's. ACCURACY is for a kernel whose PTX path lives in another source than the rest
# (the refine family's d4r_nn_linear_fp8: ptx/refine_fp8.cu, a module of its own); every kernel it names must be in
# KERNELS. The code objects are copied to build/src/kernels/cubin/ARCH/{fast,accuracy}; d4r_cuda_kernel_sets() (after
# every family) writes the sets ${D4R_NATIVE_ROOT_IN_BUILD}/ARCH and accuracy/ARCH of all families at once
# (d4r_make_kernel_set cubin: one manifest per set). Target d4r_cuda_kernels_<family>: the family's code objects.
function(d4r_cuda_kernels)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "FAMILY;ARCH;ACCURACY_SOURCE"
                          "KERNELS;ACCURACY;FAST_FLAGS;FAST_MATH;ARCH_SPECIFIC;DEPENDS")
    if(NOT arg_FAMILY OR NOT arg_ARCH OR NOT arg_ACCURACY_SOURCE OR NOT arg_KERNELS OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "d4r_cuda_kernels: FAMILY, ARCH, ACCURACY_SOURCE and KERNELS are required")
    endif()
    find_program(D4R_NVCC nvcc HINTS /usr/local/cuda/bin)
    if(NOT D4R_NVCC)
        message(STATUS "d4r: ${arg_FAMILY}'s ${arg_ARCH} kernels are not built (NVIDIA's nvcc not found)")
        return()
    endif()
    get_property(ptx GLOBAL PROPERTY D4R_KERNEL_FAMILY_${arg_FAMILY}_PTX)
    if(NOT ptx)
        message(FATAL_ERROR "d4r_cuda_kernels: family ${arg_FAMILY} has no d4r_kernel_family() before it")
    endif()
    set(deps)
    foreach(d ${arg_DEPENDS})
        get_filename_component(d ${d} ABSOLUTE)
        list(APPEND deps ${d})
    endforeach()
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/${arg_ARCH})
    string(TOUPPER ${arg_FAMILY} upper)
    set_property(GLOBAL PROPERTY D4R_${upper}_CUDA_DIR ${dir})
    set(base_flags -arch=${arg_ARCH} -O3 -std=c++17 -I${CMAKE_SOURCE_DIR}/src)
    set(fast_flags --fmad=false)
    if(arg_FAST_FLAGS)
        set(fast_flags ${arg_FAST_FLAGS})
    endif()
    # nvcc SOURCE -> dir/<stem>.cubin and .ptx, each once; a source is a fast one or an accuracy one, never both.
    set(fast_math)
    foreach(source ${arg_FAST_MATH})
        get_filename_component(source ${source} ABSOLUTE)
        list(APPEND fast_math ${source})
    endforeach()
    set(arch_specific)
    foreach(source ${arg_ARCH_SPECIFIC})
        get_filename_component(source ${source} ABSOLUTE)
        list(APPEND arch_specific ${source})
    endforeach()
    set(compiled)
    set(outputs)
    function(d4r_nvcc_source source kinds role)
        get_filename_component(source ${source} ABSOLUTE)
        get_filename_component(stem ${source} NAME_WE)
        set(flags ${base_flags} --fmad=false)
        if(role STREQUAL "fast" AND source IN_LIST fast_math)
            set(flags ${base_flags} -use_fast_math)
        elseif(role STREQUAL "fast")
            set(flags ${base_flags} ${fast_flags})
        endif()
        if(role STREQUAL "fast" AND source IN_LIST arch_specific)
            list(TRANSFORM flags REPLACE "^-arch=${arg_ARCH}$" "-arch=${arg_ARCH}a")
        endif()
        foreach(kind ${kinds})
            if(${stem}.${kind} IN_LIST compiled)
                continue()
            endif()
            add_custom_command(OUTPUT ${dir}/${stem}.${kind}
                COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
                COMMAND ${D4R_NVCC} -${kind} ${flags} -o ${dir}/${stem}.${kind} ${source}
                DEPENDS ${source} ${deps} COMMENT "nvcc ${stem} -> ${arg_ARCH} ${stem}.${kind}" VERBATIM)
            list(APPEND outputs ${dir}/${stem}.${kind})
            list(APPEND compiled ${stem}.${kind})
        endforeach()
        set(compiled ${compiled} PARENT_SCOPE)
        set(outputs ${outputs} PARENT_SCOPE)
    endfunction()
    # A sanitizer build makes only the PTX of the fast sources (what the unit tests run on ptxsim, seconds of
    # nvcc); the code objects and the sets are the default build's.
    if(D4R_SANITIZE)
        foreach(entry ${arg_KERNELS})
            string(REPLACE "=" ";" pair ${entry})
            list(GET pair 1 source)
            d4r_nvcc_source(${source} "ptx" fast)
        endforeach()
        add_custom_target(d4r_cuda_kernels_${arg_FAMILY} ALL DEPENDS ${outputs})
        return()
    endif()
    set(names)
    foreach(entry ${arg_KERNELS})
        string(REPLACE "=" ";" pair ${entry})
        list(GET pair 0 kernel)
        list(APPEND names ${kernel})
        set(accuracy_of_${kernel} ${arg_ACCURACY_SOURCE})
    endforeach()
    foreach(entry ${arg_ACCURACY})
        string(REPLACE "=" ";" pair ${entry})
        list(GET pair 0 kernel)
        list(GET pair 1 source)
        if(NOT kernel IN_LIST names)
            message(FATAL_ERROR "d4r_cuda_kernels(${arg_FAMILY}): ACCURACY names ${kernel}, which KERNELS does not")
        endif()
        set(accuracy_of_${kernel} ${source})
    endforeach()
    set(objects ${CMAKE_BINARY_DIR}/src/kernels/cubin/${arg_ARCH})
    set(copied)
    foreach(entry ${arg_KERNELS})
        string(REPLACE "=" ";" pair ${entry})
        list(GET pair 0 kernel)
        list(GET pair 1 source)
        d4r_nvcc_source(${source} "cubin;ptx" fast)
        d4r_nvcc_source(${accuracy_of_${kernel}} "cubin" accuracy)
        get_filename_component(stem ${source} NAME_WE)
        get_filename_component(accuracy_stem ${accuracy_of_${kernel}} NAME_WE)
        add_custom_command(OUTPUT ${objects}/fast/${kernel}.cubin ${objects}/accuracy/${kernel}.cubin
            COMMAND ${CMAKE_COMMAND} -E make_directory ${objects}/fast ${objects}/accuracy
            COMMAND ${CMAKE_COMMAND} -E copy ${dir}/${stem}.cubin ${objects}/fast/${kernel}.cubin
            COMMAND ${CMAKE_COMMAND} -E copy ${dir}/${accuracy_stem}.cubin ${objects}/accuracy/${kernel}.cubin
            DEPENDS ${dir}/${stem}.cubin ${dir}/${accuracy_stem}.cubin VERBATIM)
        list(APPEND copied ${objects}/fast/${kernel}.cubin ${objects}/accuracy/${kernel}.cubin)
    endforeach()
    add_custom_target(d4r_cuda_kernels_${arg_FAMILY} ALL DEPENDS ${outputs} ${copied})
    get_property(archs GLOBAL PROPERTY D4R_CUDA_ARCHS)
    if(NOT arg_ARCH IN_LIST archs)
        set_property(GLOBAL APPEND PROPERTY D4R_CUDA_ARCHS ${arg_ARCH})
    endif()
    set_property(GLOBAL APPEND PROPERTY D4R_CUDA_${arg_ARCH}_ARGS --family ${arg_FAMILY} ${ptx} ${names})
    set_property(GLOBAL APPEND PROPERTY D4R_CUDA_${arg_ARCH}_KERNELS ${names})
    set_property(GLOBAL APPEND PROPERTY D4R_CUDA_${arg_ARCH}_DEPENDS ${ptx} ${copied})
    set_property(GLOBAL APPEND PROPERTY D4R_CUDA_${arg_ARCH}_FAMILIES d4r_cuda_kernels_${arg_FAMILY})
endfunction()

# d4r_cuda_kernel_sets(): after every family's d4r_cuda_kernels, writes for each ARCH the fast set
# ${D4R_NATIVE_ROOT_IN_BUILD}/ARCH and the accuracy set accuracy/ARCH (one manifest each, for every family's kernels,
# marker last) from the code objects in build/src/kernels/cubin/ARCH. Target d4r_cuda_kernel_sets.
function(d4r_cuda_kernel_sets)
    get_property(archs GLOBAL PROPERTY D4R_CUDA_ARCHS)
    set(targets)
    foreach(arch ${archs})
        get_property(args GLOBAL PROPERTY D4R_CUDA_${arch}_ARGS)
        get_property(kernels GLOBAL PROPERTY D4R_CUDA_${arch}_KERNELS)
        get_property(deps GLOBAL PROPERTY D4R_CUDA_${arch}_DEPENDS)
        get_property(families GLOBAL PROPERTY D4R_CUDA_${arch}_FAMILIES)
        set(objects ${CMAKE_BINARY_DIR}/src/kernels/cubin/${arch})
        set(fast ${D4R_NATIVE_ROOT_IN_BUILD}/${arch})
        set(accuracy ${D4R_NATIVE_ROOT_IN_BUILD}/accuracy/${arch})
        set(set_outputs ${fast}/d4r-kernels.txt ${accuracy}/d4r-kernels.txt ${accuracy}/d4r-accuracy.txt)
        foreach(k ${kernels})
            list(APPEND set_outputs ${fast}/${k}.cubin ${accuracy}/${k}.cubin)
        endforeach()
        add_custom_command(OUTPUT ${set_outputs}
            COMMAND d4r_make_kernel_set cubin ${fast} ${objects}/fast --accuracy ${accuracy} ${objects}/accuracy ${args}
            DEPENDS d4r_make_kernel_set ${deps}
            COMMENT "NVIDIA kernel sets ${fast}, ${accuracy}" VERBATIM)
        add_custom_target(d4r_cuda_kernel_sets_${arch} ALL DEPENDS ${set_outputs})
        add_dependencies(d4r_cuda_kernel_sets_${arch} ${families})
        list(APPEND targets d4r_cuda_kernel_sets_${arch})
    endforeach()
    add_custom_target(d4r_cuda_kernel_sets)
    if(targets)
        add_dependencies(d4r_cuda_kernel_sets ${targets})
    endif()
endfunction()
