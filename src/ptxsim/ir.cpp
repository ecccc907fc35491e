// Names of the state spaces.
#include "ptxsim/ir.h"

namespace d4r::ptxsim {

const char* space_name(Space s) {
    switch (s) {
    case Space::Generic:
        return "generic";
    case Space::Global:
        return "global";
    case Space::Shared:
        return "shared";
    case Space::Local:
        return "local";
    case Space::Const:
        return "const";
    case Space::KernelParam:
        return "param";
    case Space::FuncParam:
        return "param";
    }
    return "?";
}

} // namespace d4r::ptxsim
