/* libFuzzer target: the PFM reader through clv__pfm_read_stream. See tests/fuzz/README.md. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clv_io_set_max_pixels(FUZZ_MAX_PIXELS);
    clv_host_image img;
    FILE *fp = fuzz_open_memory(data, size);
    if (!fp)
        return 0;
    clv_status s = clv__pfm_read_stream(fp, "fuzz.pfm", &img);
    fclose(fp);
    if (s == CLV_OK)
        fuzz_check_image(&img);
    else if (img.data || img.width || img.height)
        abort(); /* the contract: *out is zeroed on failure */
    clv_host_image_free(&img);
    return 0;
}
