/* clvision — border mode names. */
#include <stdio.h>
#include <strings.h>

#include "runtime/internal.h"

static const struct {
    clv_border mode;
    const char *name;
    const char *macro;
} borders[] = {
    {CLV_BORDER_REFLECT101, "reflect101", "BORDER_REFLECT101"},
    {CLV_BORDER_REPLICATE, "replicate", "BORDER_REPLICATE"},
    {CLV_BORDER_REFLECT, "reflect", "BORDER_REFLECT"},
    {CLV_BORDER_CONSTANT, "constant", "BORDER_CONSTANT"},
    {CLV_BORDER_WRAP, "wrap", "BORDER_WRAP"},
};

#define NBORDERS (sizeof borders / sizeof borders[0])

CLV_API clv_status clv_border_from_string(const char *name, clv_border *out)
{
    if (!name || !out)
        return CLV_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < NBORDERS; i++) {
        if (strcasecmp(name, borders[i].name) == 0) {
            *out = borders[i].mode;
            return CLV_OK;
        }
    }
    return CLV_ERROR_INVALID_ARGUMENT;
}

CLV_API const char *clv_border_name(clv_border border)
{
    for (size_t i = 0; i < NBORDERS; i++)
        if (borders[i].mode == border)
            return borders[i].name;
    return "?";
}

const char *clv__border_macro(clv_border border)
{
    for (size_t i = 0; i < NBORDERS; i++)
        if (borders[i].mode == border)
            return borders[i].macro;
    return NULL;
}

clv_status clv__filter_options(clv_context *ctx, const char *op, const clv_image *src,
                               clv_border border, char *buf, size_t size)
{
    const char *macro = clv__border_macro(border);
    if (!macro)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, op, "unknown border mode %d",
                         (int)border);
    char fmt[64];
    clv__format_options(fmt, sizeof fmt, src->type, src->channels);
    snprintf(buf, size, "%s -DBORDER=%s", fmt, macro);
    return CLV_OK;
}

const char *const clv__border_names[5] = {"reflect101", "replicate", "reflect", "constant",
                                          "wrap"};
const int clv__border_values[5] = {CLV_BORDER_REFLECT101, CLV_BORDER_REPLICATE,
                                   CLV_BORDER_REFLECT, CLV_BORDER_CONSTANT, CLV_BORDER_WRAP};
