// PaddlePaddle's backward ops in a training program it saved (legacy ProgramDesc): each
// `<op>_grad` op is the fused backward of a forward op, with PaddlePaddle's slot names
// (forward inputs and outputs under their own slots, `<Out>@GRAD` inputs, `<X>@GRAD`
// outputs). paddle_like registers many of them (docs/architecture.md, "Programs built by
// PaddlePaddle"); one it does not register is written, when the program loads, as the
// backward ops paddle_like's grad maker of the forward op emits, reading the same forward
// variables and output gradients and writing the same input gradients.
#pragma once

namespace paddle_like {
namespace framework {

class ProgramDesc;

// Replaces each op of type `<fwd>_grad` that is not registered, where `<fwd>` is registered
// with a grad maker and its forward op precedes it in the block: the last op of that type
// that holds the forward values the grad op names in the same slots and wrote a variable
// whose gradient the grad op reads (or read one whose gradient it writes). Output gradients
// the grad op does not read but the maker does are zeros. Other ops are left as they are (an
// unregistered op then fails where the program is checked or run); so is a grad op whose
// forward op is not well formed (slots and attributes as registered), holds one variable in
// two input places, or writes an input with a gradient in place. Returns how many ops were
// replaced.
int ExpandPaddleGradOps(ProgramDesc* program);

}  // namespace framework
}  // namespace paddle_like
