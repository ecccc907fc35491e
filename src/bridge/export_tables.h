// The Wine bridge (nvcuda.dll): cudart's private export tables for Windows programs.
//
// Promise:
//   * windows_export_table() asks libd4rcuda for the table; for the ids d4r knows it hands out a table
//     of its own per id, built once and kept for the process: data slots (a table's size in slot 0, data
//     pointers) copied as they are, every function slot a Windows x64 (ms_abi) entry point that calls
//     the Linux slot with the System V convention. Never a raw Linux function pointer.
//   * The context-local-storage destructor an application passes in is called back with the Windows
//     convention on a thread Wine knows; the integrity check is computed over the tables the Windows
//     program was handed (see export_tables.cpp).
//   * An id libd4rcuda refuses is refused with libd4rcuda's answer; an id libd4rcuda serves but whose
//     layout the bridge does not know is refused with CUDA_ERROR_INVALID_VALUE, as NVIDIA's driver
//     answers an id it does not know. Each logged once with the id's 16 bytes.
#pragma once

#include "abi/cuda.h"

namespace d4r::bridge {

// cuGetExportTable for Windows code; *TABLE is nulled first.
abi::CUresult windows_export_table(const void** table, const abi::CUuuid* id);

} // namespace d4r::bridge
