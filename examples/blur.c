/* Gaussian blur of photo.png into blurred.png: the program README.md shows
 * under "Using the library". Every call's status is checked; on failure the
 * program prints one line saying what failed and why, and exits 1. */
#include <stdio.h>

#include <clvision/clvision.h>

int main(void)
{
    int rc = 1;
    clv_host_image in = {0};
    clv_context *ctx = NULL;
    clv_image *src = NULL, *dst = NULL;

    clv_status s = clv_image_read("photo.png", &in);     /* PNG, JPEG, EXR, HDR, PFM */
    if (s != CLV_OK) {
        fprintf(stderr, "blur: reading photo.png: %s: %s\n", clv_status_string(s),
                clv_io_last_error());
        return 1;
    }
    s = clv_context_create(NULL, &ctx);                  /* NULL: default options */
    if (s != CLV_OK) {
        fprintf(stderr, "blur: no OpenCL context: %s: %s\n", clv_status_string(s),
                clv_context_create_error());
        goto out;
    }
    if ((s = clv_image_create(ctx, in.width, in.height, in.channels, in.type, &src)) != CLV_OK ||
        (s = clv_image_create(ctx, in.width, in.height, in.channels, in.type, &dst)) != CLV_OK ||
        (s = clv_image_upload(src, in.data, in.stride)) != CLV_OK ||
        (s = clv_gaussian_blur(ctx, src, dst, 2.0, 0.0, 0, 0, CLV_BORDER_REFLECT101)) != CLV_OK ||
        (s = clv_image_download(dst, in.data, in.stride)) != CLV_OK) { /* waits for the op */
        fprintf(stderr, "blur: %s: %s\n", clv_status_string(s), clv_last_error(ctx));
        goto out;
    }
    s = clv_image_write("blurred.png", &in, 0);
    if (s != CLV_OK) {
        fprintf(stderr, "blur: writing blurred.png: %s: %s\n", clv_status_string(s),
                clv_io_last_error());
        goto out;
    }
    rc = 0;
out:
    clv_image_release(src);                              /* each accepts NULL */
    clv_image_release(dst);
    clv_context_release(ctx);
    clv_host_image_free(&in);
    return rc;
}
