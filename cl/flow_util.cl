/* Flow-field utilities: backward warping, Middlebury colour coding, and the
 * per-work-group partial sums of flow evaluation.
 *
 * Two halves, chosen by the build options:
 *   with CN (and DEPTH_*)   warp_bilinear, built per source pixel format;
 *   without CN              flow_max_sq, flow_to_color, flow_eval_partial,
 *                           which only read flow fields (2 x f32 per pixel,
 *                           loaded with vload2) and need no format options.
 * With -DVEC=n (CPU devices) every work-item handles n consecutive pixels of
 * a row; without it, one.
 *
 * A flow vector is unknown when |u| or |v| >= 1e9 or either is NaN
 * (Middlebury's UNKNOWN_FLOW_THRESH): FLOW_KNOWN is false for those.
 * The reductions assume a power-of-two work-group (the host picks one).
 */

#ifdef VEC
#define PPI VEC
#else
#define PPI 1
#endif

#define FLOW_KNOWN(f) (fabs((f).x) < 1e9f && fabs((f).y) < 1e9f) /* false for NaN */

/* atan2: the built-in, except with -DCLV_POLY_MATH (CPU devices), where
 * PoCL's built-in is a scalar library call that dominates these kernels.
 * There: reduce to t = min/max in [0, 1], fold t > tan(pi/8) with
 * (t-1)/(t+1), then Cephes' atanf polynomial (relative error ~2e-7), and
 * unfold by octant. NaN in gives NaN; (0, 0) gives +-0; the sign of a zero
 * y is kept (atan2(-0, -1) = -pi). Infinite inputs are not expected. */
#ifdef CLV_POLY_MATH
static inline float clv_atan2(float y, float x)
{
    const float ax = fabs(x), ay = fabs(y);
    const int swap = ay > ax;
    float t = swap ? ax / ay : ay / ax;
    t = ax == 0.0f && ay == 0.0f ? 0.0f : t;
    const int big = t > 0.41421356f;
    const float u = big ? (t - 1.0f) / (t + 1.0f) : t;
    const float z = u * u;
    float r = (((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z -
               3.33329491539e-1f) * z * u + u;
    r += big ? M_PI_4_F : 0.0f;
    r = swap ? M_PI_2_F - r : r;
    r = x < 0.0f ? M_PI_F - r : r;
    return copysign(r, y);
}
#define CLV_ATAN2(y, x) clv_atan2((y), (x))
#else
#define CLV_ATAN2(y, x) atan2((y), (x))
#endif

#ifdef CN

/* dst(x, y) = src(x + u, y + v), bilinear. The source coordinate is clamped
 * to [0, sw-1] x [0, sh-1] first, which is exactly bilinear interpolation
 * with a replicated border; fmax/fmin return the other operand for NaN, so a
 * NaN displacement reads column (row) 0. src may have any size; flow and dst
 * are w x h. */
__kernel void warp_bilinear(__global const T *src, int src_pitch, int sw, int sh,
                            __global const float *flow, int flow_pitch, __global T *dst,
                            int dst_pitch, int w, int h CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(src, 0);
    CLV_DBG_BUF(flow, 4);
    CLV_DBG_BUF(dst, 6);
    const int x0 = get_global_id(0) * PPI;
    const int y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    __global const float *frow = ROW(flow, flow_pitch, y);
    __global T *out = ROW(dst, dst_pitch, y);
    const float xmax = (float)(sw - 1), ymax = (float)(sh - 1);
    const int n = min(PPI, w - x0);
    for (int i = 0; i < n; i++) {
        const int x = x0 + i;
        const float2 f = GVLD(2, flow, x, frow);
        const float sx = fmin(fmax((float)x + f.x, 0.0f), xmax);
        const float sy = fmin(fmax((float)y + f.y, 0.0f), ymax);
        const float fx0 = floor(sx), fy0 = floor(sy);
        const float ax = sx - fx0, ay = sy - fy0;
        const int ix0 = (int)fx0, iy0 = (int)fy0;
        const int ix1 = min(ix0 + 1, sw - 1), iy1 = min(iy0 + 1, sh - 1);
        __global const T *r0 = ROW(src, src_pitch, iy0);
        __global const T *r1 = ROW(src, src_pitch, iy1);
        const FN top = LOAD_PIX(src, r0, ix0) * (1.0f - ax) + LOAD_PIX(src, r0, ix1) * ax;
        const FN bot = LOAD_PIX(src, r1, ix0) * (1.0f - ax) + LOAD_PIX(src, r1, ix1) * ax;
        STORE_PIX(dst, out, x, top * (1.0f - ay) + bot * ay);
    }
}

#else /* flow-field kernels */

/* Index of this work-item in its (power-of-two) work-group, and the size. */
#define LID ((int)(get_local_id(1) * get_local_size(0) + get_local_id(0)))
#define LSIZE ((int)(get_local_size(0) * get_local_size(1)))

/* Largest u^2 + v^2 over the known vectors, as float bits, into *max_bits
 * (set to 0 by the host first): a tree maximum per group, then one
 * atomic_max per group. Non-negative floats order like their bit patterns,
 * so the result does not depend on the order of the groups. */
__kernel void flow_max_sq(__global const float *flow, int flow_pitch, int w, int h,
                          __global uint *max_bits, __local float *part CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(flow, 0);
    CLV_DBG_BUF(max_bits, 4);
    const int x0 = get_global_id(0) * PPI;
    const int y = get_global_id(1);
    float m = 0.0f;
    if (x0 < w && y < h) {
        __global const float *frow = ROW(flow, flow_pitch, y);
        const int n = min(PPI, w - x0);
        for (int i = 0; i < n; i++) {
            const float2 f = GVLD(2, flow, x0 + i, frow);
            if (FLOW_KNOWN(f))
                m = fmax(m, f.x * f.x + f.y * f.y);
        }
    }
    const int lid = LID;
    part[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = LSIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] = fmax(part[lid], part[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        GATOMIC(atomic_max, max_bits, max_bits, 0, as_uint(part[0]));
}

/* Middlebury colour wheel (Baker et al., flow-code/colorcode.cpp): 55 hues
 * in six ramps, RY=15 YG=6 GC=4 CB=11 BM=13 MR=6, entry i of a ramp
 * stepping one component by 255*i/len (integer division, as the original):
 * red -> yellow -> green -> cyan -> blue -> magenta -> (red). A table,
 * because a lookup is cheaper than the ramp arithmetic on every device;
 * tests/ref/ref_flow.c rebuilds it from the ramps. */
#define NCOLS 55
__constant uchar wheel_rgb[NCOLS * 3] = {
    255, 0,   0,   255, 17,  0,   255, 34,  0,   255, 51,  0,   255, 68,  0,   /* RY */
    255, 85,  0,   255, 102, 0,   255, 119, 0,   255, 136, 0,   255, 153, 0,
    255, 170, 0,   255, 187, 0,   255, 204, 0,   255, 221, 0,   255, 238, 0,
    255, 255, 0,   213, 255, 0,   170, 255, 0,   128, 255, 0,   85,  255, 0,   /* YG */
    43,  255, 0,
    0,   255, 0,   0,   255, 63,  0,   255, 127, 0,   255, 191,                  /* GC */
    0,   255, 255, 0,   232, 255, 0,   209, 255, 0,   186, 255, 0,   163, 255, /* CB */
    0,   140, 255, 0,   116, 255, 0,   93,  255, 0,   70,  255, 0,   47,  255,
    0,   24,  255,
    0,   0,   255, 19,  0,   255, 39,  0,   255, 58,  0,   255, 78,  0,   255, /* BM */
    98,  0,   255, 117, 0,   255, 137, 0,   255, 156, 0,   255, 176, 0,   255,
    196, 0,   255, 215, 0,   255, 235, 0,   255,
    255, 0,   255, 255, 0,   213, 255, 0,   170, 255, 0,   128, 255, 0,   85,  /* MR */
    255, 0,   43,
};

static inline float3 wheel(int k)
{
    return convert_float3(vload3(k, wheel_rgb)) * (1.0f / 255.0f);
}

/* computeColor() of colorcode.cpp for the flow vector (u, v) and its
 * magnitude relative to the maximum, rad: hue from the angle of (u, v) (the
 * original divides first; the angle is the same), white at zero, full colour
 * at rad 1, darkened (x 0.75) beyond. Truncated to u8 as the original.
 * Two rounding-proof details: the largest vector of the field sits at
 * rad = 1 only up to rounding, so rad <= 1 + 1e-5 counts as inside (it is
 * never darkened); and on the seam v = 0, u > 0 the angle is -pi (red)
 * whatever the sign of the zero, as C's atan2 gives for v = +0. */
static inline uchar3 flow_color(float u, float v, float rad)
{
    const float a = v == 0.0f && u > 0.0f ? -1.0f : CLV_ATAN2(-v, -u) * M_1_PI_F;
    const float fk = (a + 1.0f) * 0.5f * (float)(NCOLS - 1);
    const int k0 = clamp((int)fk, 0, NCOLS - 1);
    const int k1 = k0 + 1 == NCOLS ? 0 : k0 + 1;
    const float f = clamp(fk - (float)k0, 0.0f, 1.0f);
    float3 col = (1.0f - f) * wheel(k0) + f * wheel(k1);
    col = rad <= 1.0f + 1e-5f ? 1.0f - rad * (1.0f - col) : col * 0.75f;
    return convert_uchar3(clamp(255.0f * col, 0.0f, 255.0f));
}

/* rgb = colour of flow / max_rad; max_rad <= 0: sqrt(*max_bits) from
 * flow_max_sq (1 when that is 0, as the original). Unknown flow is black. */
__kernel void flow_to_color(__global const float *flow, int flow_pitch, int w, int h,
                            __global uchar *rgb, int rgb_pitch, float max_rad,
                            __global const uint *max_bits CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(flow, 0);
    CLV_DBG_BUF(rgb, 4);
    CLV_DBG_BUF(max_bits, 7);
    const int x0 = get_global_id(0) * PPI;
    const int y = get_global_id(1);
    if (x0 >= w || y >= h)
        return;
    float m = max_rad;
    if (m <= 0.0f) {
        m = sqrt(as_float(GLD(max_bits, max_bits, 0)));
        if (m == 0.0f)
            m = 1.0f;
    }
    const float inv = 1.0f / m;
    __global const float *frow = ROW(flow, flow_pitch, y);
    __global uchar *out = ROW(rgb, rgb_pitch, y);
    const int n = min(PPI, w - x0);
    for (int i = 0; i < n; i++) {
        const float2 f = GVLD(2, flow, x0 + i, frow);
        uchar3 c = (uchar3)(0, 0, 0);
        if (FLOW_KNOWN(f)) {
            const float fx = f.x * inv, fy = f.y * inv;
            c = flow_color(f.x, f.y, sqrt(fx * fx + fy * fy));
        }
        GVST(3, rgb, c, x0 + i, out);
    }
}

/* Per work-group sums over the pixels with known ground truth. part holds 8
 * uints per group (index y-group * groups-in-x + x-group): the endpoint
 * error sum and the angular error sum (radians) as float bits, then the
 * counts of pixels, and of those with endpoint error > 1, > 3, > 5, then two
 * zeros. A group covers at most a few thousand pixels, so float sums lose
 * ~1e-6 relative at most; the host adds the groups in double.
 *
 * Endpoint error: |e - g| with d = e - g. Angular error: the angle between
 * (ue, ve, 1) and (ug, vg, 1), i.e. acos((ue ug + ve vg + 1) / sqrt((ue^2 +
 * ve^2 + 1)(ug^2 + vg^2 + 1))), computed as atan2(|a x b|, a . b), which is
 * the same angle without acos's loss of accuracy for small angles. The cross
 * product is (dv, -du, ve du - ue dv): written with the differences so that
 * nearly equal large vectors do not cancel. Thresholds compare d^2 with 1, 9,
 * 25, exact for exact inputs. */
__kernel void flow_eval_partial(__global const float *est, int est_pitch,
                                __global const float *gt, int gt_pitch, int w, int h,
                                __global uint *part, __local float *sums,
                                __local uint *counts CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(est, 0);
    CLV_DBG_BUF(gt, 2);
    CLV_DBG_BUF(part, 6);
    const int x0 = get_global_id(0) * PPI;
    const int y = get_global_id(1);
    float s_epe = 0.0f, s_ae = 0.0f;
    uint nv = 0, n1 = 0, n3 = 0, n5 = 0;
    if (x0 < w && y < h) {
        __global const float *erow = ROW(est, est_pitch, y);
        __global const float *grow = ROW(gt, gt_pitch, y);
        const int n = min(PPI, w - x0);
        for (int i = 0; i < n; i++) {
            const float2 g = GVLD(2, gt, x0 + i, grow);
            if (!FLOW_KNOWN(g))
                continue;
            const float2 e = GVLD(2, est, x0 + i, erow);
            const float du = e.x - g.x, dv = e.y - g.y;
            const float d2 = du * du + dv * dv;
            const float cz = e.y * du - e.x * dv;
            const float dotp = e.x * g.x + e.y * g.y + 1.0f;
            s_epe += sqrt(d2);
            s_ae += CLV_ATAN2(sqrt(d2 + cz * cz), dotp);
            nv++;
            n1 += d2 > 1.0f;
            n3 += d2 > 9.0f;
            n5 += d2 > 25.0f;
        }
    }
    const int lid = LID;
    sums[2 * lid] = s_epe;
    sums[2 * lid + 1] = s_ae;
    vstore4((uint4)(nv, n1, n3, n5), lid, counts);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = LSIZE / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[2 * lid] += sums[2 * (lid + s)];
            sums[2 * lid + 1] += sums[2 * (lid + s) + 1];
            vstore4(vload4(lid, counts) + vload4(lid + s, counts), lid, counts);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
        const uint4 c = vload4(0, counts);
        GVST(8, part, (uint8)(as_uint(sums[0]), as_uint(sums[1]), c.s0, c.s1, c.s2, c.s3, 0u, 0u),
             g, part);
    }
}

#endif /* CN */
