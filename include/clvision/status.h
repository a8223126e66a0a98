/* clvision — status codes.
 *
 * Every public function that can fail returns a clv_status. The values are
 * pinned: they never change between releases, so they may be stored or sent
 * across process boundaries. CLV_OK is zero; every error is negative.
 */
#ifndef CLVISION_STATUS_H
#define CLVISION_STATUS_H

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clv_status {
    CLV_OK                      = 0,
    CLV_ERROR_INVALID_ARGUMENT  = -1,  /* NULL pointer, bad size, bad shape or parameter */
    CLV_ERROR_OUT_OF_MEMORY     = -2,  /* host allocation failed */
    CLV_ERROR_NO_DEVICE         = -3,  /* no OpenCL platform/device, or CLV_DEVICE matched nothing */
    CLV_ERROR_OPENCL            = -4,  /* an OpenCL call failed; the message names the call and CL code */
    CLV_ERROR_BUILD             = -5,  /* kernel program failed to build; message holds options + log */
    CLV_ERROR_KERNEL_SOURCE     = -6,  /* a .cl file is missing or unreadable; message names paths tried */
    CLV_ERROR_UNSUPPORTED       = -7,  /* the device (or format) cannot do this; message says why */
    CLV_ERROR_IO                = -8,  /* file could not be opened, read or written */
    CLV_ERROR_FORMAT            = -9,  /* file content is malformed, truncated or of an unknown format */
    CLV_ERROR_KERNEL_FAULT      = -10, /* a kernel reported a fault (debug builds) */
} clv_status;

/* Short constant English description of a status ("invalid argument", ...).
 * Never returns NULL; unknown values give "unknown status". Thread-safe. */
CLV_API const char *clv_status_string(clv_status status);

#ifdef __cplusplus
}
#endif

#endif
