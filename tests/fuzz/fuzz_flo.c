/* libFuzzer target: the Middlebury .flo reader through clv_flo_read (it fstat()s the file). See tests/fuzz/README.md. */
#include "fuzz_common.h"

#include <clvision/flow.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clv_io_set_max_pixels(FUZZ_MAX_PIXELS);
    clv_host_image img;
    const char *path = fuzz_write_file(data, size, ".flo");
    if (!path)
        return 0;
    clv_status s = clv_flo_read(path, &img);
    if (s == CLV_OK)
        fuzz_check_image(&img);
    else if (img.data || img.width || img.height)
        abort(); /* the contract: *out is zeroed on failure */
    clv_host_image_free(&img);
    return 0;
}
