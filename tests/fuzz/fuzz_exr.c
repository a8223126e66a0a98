/* libFuzzer target: the OpenEXR reader through clv_exr_read (it needs a real file: fileno). See tests/fuzz/README.md. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clv_io_set_max_pixels(FUZZ_MAX_PIXELS);
    clv_host_image img;
    const char *path = fuzz_write_file(data, size, ".exr");
    if (!path)
        return 0;
    clv_status s = clv_exr_read(path, &img);
    if (s == CLV_OK)
        fuzz_check_image(&img);
    else if (img.data || img.width || img.height)
        abort(); /* the contract: *out is zeroed on failure */
    clv_host_image_free(&img);
    return 0;
}
