/* Test-only kernels for tests/test_debug.c (never installed). Built after the
 * prelude by clv_debug_run_test_kernel, which passes buf (n floats, zeroed)
 * and n and launches a 1-D range; with CLV_DEBUG=1 every access below is
 * checked. The planted out-of-bounds accesses are at fixed work-items and
 * indices the test looks for in the error message. */

/* In bounds: buf[i] += 1 for i < n. */
__kernel void dbg_in_bounds(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i < n)
        GST(buf, buf, i, GLD(buf, buf, i) + 1.0f);
}

/* Work-item 5 loads element n + 7. */
__kernel void dbg_oob_load(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int j = i == 5 ? n + 7 : i;
    GST(buf, buf, i, GLD(buf, buf, j) + 1.0f);
}

/* Work-item 9 stores element n + 3. */
__kernel void dbg_oob_store(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i < n)
        GST(buf, buf, i == 9 ? n + 3 : i, 2.0f);
}

/* Work-item 2 loads element -1, through a row pointer one row below the
 * start (the index is relative to the buffer, whatever the pointer). */
__kernel void dbg_oob_negative(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i >= n)
        return;
    __global float *row = ROW(buf, 4, 1);
    const float v = GLD(buf, row, i == 2 ? -5 : i - 4);
    if (i >= 4)
        GST(buf, row, i - 4, v + 1.0f);
}

/* Work-item 3 loads a float4 at element n - 2: its last two lanes are out. */
__kernel void dbg_oob_vload(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i >= n / 4)
        return;
    const float4 v = i == 3 ? GVLD(4, buf, 0, buf + n - 2) : GVLD(4, buf, i, buf);
    GVST(4, buf, v + 1.0f, i, buf);
}

/* Work-item 6 stores a float4 from element n - 1. */
__kernel void dbg_oob_vstore(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i >= n / 4)
        return;
    if (i == 6)
        GVST(4, buf, (float4)(3.0f), 0, buf + n - 1);
    else
        GVST(4, buf, (float4)(3.0f), i, buf);
}

/* Aligned whole-vector stores (GVSTA): in bounds for every work-item, except
 * that with bad = 1 work-item 7 stores at element n (aligned, out of bounds)
 * and with bad = 2 work-item 4 stores at element 17 (in bounds, misaligned). */
static inline void dbg_vstorea(__global float *buf CLV_DBG_PARAM(buf), int n, int bad)
{
    const int i = get_global_id(0);
    if (i >= n / 4)
        return;
    int e = 4 * i;
    if (bad == 1 && i == 7)
        e = n;
    if (bad == 2 && i == 4)
        e = 17;
    GVSTA(float4, buf, (float4)(4.0f), buf + e);
}
__kernel void dbg_vstorea_ok(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    dbg_vstorea(buf CLV_DBG_PASS(buf), n, 0);
}
__kernel void dbg_oob_vstorea(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    dbg_vstorea(buf CLV_DBG_PASS(buf), n, 1);
}
__kernel void dbg_misaligned_vstorea(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    dbg_vstorea(buf CLV_DBG_PASS(buf), n, 2);
}

/* Every work-item i loads element n + i: exactly one of them is reported. */
__kernel void dbg_oob_all(__global float *buf, int n CLV_DBG_PARAMS)
{
    CLV_DBG_BUF(buf, 0);
    const int i = get_global_id(0);
    if (i < n)
        GST(buf, buf, i, GLD(buf, buf, n + i));
}
