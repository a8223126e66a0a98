/* clv_sobel against its C reference, through the shared harness. */
#include "harness.h"
#include "ref/ref.h"
#include "testutil.h"

static double px(const clv_host_image *s, int x, int y, int c)
{
    const size_t i = ((size_t)y * s->width + x) * s->channels + c;
    return s->type == CLV_U8    ? ((const unsigned char *)s->data)[i]
           : s->type == CLV_U16 ? ((const unsigned short *)s->data)[i]
                                : ((const float *)s->data)[i];
}

static void ref_sobel(const harness_case *hc, void *user)
{
    (void)user;
    static const double t[3][3] = {{1, 2, 1}, {-1, 0, 1}, {1, -2, 1}};
    const clv_host_image *s = harness_in(hc, "src");
    float *d = harness_out(hc, "dst")->data;
    const int dx = harness_int(hc, "dx"), dy = harness_int(hc, "dy");
    const clv_border b = (clv_border)harness_int(hc, "border");
    for (int y = 0; y < s->height; y++)
        for (int x = 0; x < s->width; x++)
            for (int c = 0; c < s->channels; c++) {
                double sum = 0.0;
                for (int j = 0; j < 3; j++)
                    for (int i = 0; i < 3; i++) {
                        const int sx = ref_border_index(x + i - 1, s->width, b);
                        const int sy = ref_border_index(y + j - 1, s->height, b);
                        if (sx >= 0 && sy >= 0)
                            sum += t[dy][j] * t[dx][i] * px(s, sx, sy, c);
                    }
                d[((size_t)y * s->width + x) * s->channels + c] =
                    (float)(sum * harness_double(hc, "scale"));
            }
}

int main(void)
{
    clv_context *ctx = test_context();
    static const harness_args orders[] = {
        HARNESS_SET(HARNESS_INT("dx", 1), HARNESS_INT("dy", 0)),
        HARNESS_SET(HARNESS_INT("dx", 0), HARNESS_INT("dy", 1), HARNESS_DOUBLE("scale", 0.25)),
        HARNESS_SET(HARNESS_INT("dx", 2), HARNESS_INT("dy", 0)),
        HARNESS_SET(HARNESS_INT("dx", 1), HARNESS_INT("dy", 2), HARNESS_DOUBLE("scale", -3))};
    const harness_result r = harness_run(
        ctx, &(harness_spec){.op = "sobel", .ref = ref_sobel, .sweep = orders, .nsweep = 4});
    clv_context_release(ctx);
    return test_finish("sobel", r.cases - r.failures);
}
