/* NVPTX only (tests/portability/xbuild.py): native_exp2 for clang-15 + libclc.
 * libclc 15 implements native_exp2 (and native_exp, native_log2, ...) with
 * LLVM intrinsics that LLVM 15's NVPTX back end cannot lower ("Undefined
 * external symbol exp2f"), although every NVIDIA driver has them (PTX
 * ex2.approx). Linked before libclc, this definition replaces libclc's, so the
 * kernels that call it still go through the whole back end. Add a function
 * here only when a kernel starts using another broken native_ builtin. */
#define NATIVE_VEC(N)                                                                          \
    __attribute__((overloadable)) float##N native_exp2(float##N x)                            \
    {                                                                                          \
        float##N r;                                                                            \
        for (int i = 0; i < N; i++)                                                            \
            ((float *)&r)[i] = __nvvm_ex2_approx_f(((float *)&x)[i]);                          \
        return r;                                                                              \
    }

__attribute__((overloadable)) float native_exp2(float x)
{
    return __nvvm_ex2_approx_f(x);
}
NATIVE_VEC(2)
NATIVE_VEC(3)
NATIVE_VEC(4)
NATIVE_VEC(8)
NATIVE_VEC(16)
