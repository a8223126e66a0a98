/* clvision — 3x3 Sobel derivatives (src/ops/sobel.c): one work-item per
 * pixel, f32 out. kx, ky: the horizontal and vertical taps the host picks
 * for the orders dx, dy; dst = scale * sum ky[j] kx[i] src(x+i-1, y+j-1).
 * The border mode is an argument, not a build option: one program per
 * pixel format serves all five. */
__kernel void sobel3(__global const T *src, int src_pitch, int width, int height,
                     __global float *dst, int dst_pitch, float kx0, float kx1, float kx2,
                     float ky0, float ky1, float ky2, float scale, int border CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(dst, 4);
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const float kx[3] = {kx0, kx1, kx2}, ky[3] = {ky0, ky1, ky2};
    FN acc = FN_ZERO;
    for (int j = 0; j < 3; j++) {
        const int sy = clv_border_index(y + j - 1, height, border);
        if (sy < 0 || ky[j] == 0.0f)
            continue;
        FN row = FN_ZERO;
        for (int i = 0; i < 3; i++) {
            const int sx = clv_border_index(x + i - 1, width, border);
            if (sx >= 0)
                row += kx[i] * LOAD_PIX(src, ROW(src, src_pitch, sy), sx);
        }
        acc += ky[j] * row;
    }
    STORE_FPIX(dst, ROW(dst, dst_pitch, y), x, acc * scale);
}
