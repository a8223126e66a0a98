/* clv OPERATION: any described operation from the command line, with no
 * per-operation code. Options, positionals, help, checks and the shapes of
 * the outputs all come from the operation's descriptor (clvision/op.h):
 *
 *   - a number or enum parameter is "--name-with-dashes VALUE", plus the
 *     spellings of its cli_alias; one alias on two consecutive INT
 *     parameters takes "WxH" for both (--ksize 5x3);
 *   - a BOOL parameter is a flag (present: 1);
 *   - required images are positionals, inputs first, in the prototype's
 *     order; optional images are options naming a file;
 *   - an output whose size is the caller's choice (CLV_PARAM_FREE_SIZE)
 *     takes --size WxH;
 *   - a value breaking its parameter's own rule, or a rule between
 *     parameters (clv_op_check), is a usage error before any file is read.
 *
 * Input files are uploaded as they are and converted on the device
 * (clv_convert_color, clv_convert_type) to what the operation takes: colour
 * to gray (Rec. 601, or 709 with --gray 709) when only one channel is taken,
 * gray to RGB or RGBA to RGB when three are, 16-bit to f32 (full scale 1.0)
 * when u16 is not taken. Files ending in .flo are read and written as
 * Middlebury flow fields. */
#include "cli.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PARAMS = 32, MAX_OPTS = 3 * MAX_PARAMS, SPELL_MAX = 48 };

typedef enum opt_kind {
    OPT_VALUE, /* a number or an enum: one parameter */
    OPT_PAIR,  /* WxH: two INT parameters */
    OPT_FLAG,  /* BOOL */
    OPT_FILE,  /* an optional image: a file path */
    OPT_SIZE,  /* --size WxH of a FREE_SIZE output */
    OPT_TYPE,  /* --type T of an output whose type is the caller's choice */
} opt_kind;

typedef struct opt_spec {
    char spelling[SPELL_MAX];
    opt_kind kind;
    int param, param2; /* param2: OPT_PAIR's second */
} opt_spec;

/* Everything one command line of an operation holds. */
typedef struct op_line {
    const clv_op_desc *op;
    const char *cmd; /* the name the user typed */
    opt_spec opts[MAX_OPTS];
    int nopts;
    clv_arg args[MAX_PARAMS];
    int given[MAX_PARAMS];
    const char *given_as[MAX_PARAMS]; /* the spelling the user set it with */
    const char *path[MAX_PARAMS]; /* image parameters: their files */
    int out_type[MAX_PARAMS];     /* --type of an output, or -1: the op's shape rule */
    int size_w, size_h;           /* --size, for the FREE_SIZE output */
    int free_size;                /* index of that output, or -1 */
    int takes_gray;               /* an input takes 1 channel only: --gray applies */
    cli_gray_weights gray;        /* --gray 601|709 */
} op_line;

static int is_image(const clv_param_desc *p) { return p->type == CLV_PARAM_IMAGE; }
static int is_output(const clv_param_desc *p) { return (p->flags & CLV_PARAM_OUTPUT) != 0; }
static int is_optional(const clv_param_desc *p) { return (p->flags & CLV_PARAM_OPTIONAL) != 0; }
/* A required image given as a positional (not by an option spelling). */
static int is_positional(const clv_param_desc *p)
{
    return p->type == CLV_PARAM_IMAGE && !(p->flags & CLV_PARAM_OPTIONAL) && !p->cli_alias;
}
static int is_scalar(const clv_param_desc *p)
{
    return p->type == CLV_PARAM_INT || p->type == CLV_PARAM_DOUBLE ||
           p->type == CLV_PARAM_ENUM || p->type == CLV_PARAM_BOOL;
}

/* Whether the command line can drive op at all (arrays, pyramids and result
 * structs need a workflow command). */
int cli_op_supported(const clv_op_desc *op)
{
    if (!op || op->nparams > MAX_PARAMS)
        return 0;
    for (int i = 0; i < op->nparams; i++)
        if (!is_scalar(&op->params[i]) && !is_image(&op->params[i]))
            return 0;
    return 1;
}

/* "--sigma-x" from "sigma_x". */
static void dashed(const char *name, char *buf, size_t size)
{
    size_t n = 0;
    buf[n++] = '-';
    buf[n++] = '-';
    for (const char *s = name; *s && n + 1 < size; s++)
        buf[n++] = *s == '_' ? '-' : *s;
    buf[n] = '\0';
}

static void add_opt(op_line *l, const char *spelling, opt_kind kind, int param, int param2)
{
    if (l->nopts >= MAX_OPTS)
        return;
    for (int k = 0; k < l->nopts; k++)
        if (strcmp(l->opts[k].spelling, spelling) == 0)
            return; /* an alias that is the dashed name itself */
    opt_spec *o = &l->opts[l->nopts++];
    snprintf(o->spelling, sizeof o->spelling, "%s", spelling);
    o->kind = kind;
    o->param = param;
    o->param2 = param2;
}

/* Whether the space-separated list `aliases` holds `word`. */
static int has_word(const char *aliases, const char *word)
{
    const size_t n = strlen(word);
    for (const char *s = aliases; s && *s;) {
        while (*s == ' ')
            s++;
        const char *e = strchr(s, ' ');
        const size_t m = e ? (size_t)(e - s) : strlen(s);
        if (m == n && strncmp(s, word, n) == 0)
            return 1;
        s += m;
    }
    return 0;
}

static const opt_spec *find_opt(const op_line *l, const char *name)
{
    for (int k = 0; k < l->nopts; k++)
        if (strcmp(l->opts[k].spelling, name) == 0)
            return &l->opts[k];
    return NULL;
}

static void build_options(op_line *l)
{
    const clv_op_desc *op = l->op;
    char buf[SPELL_MAX];
    l->free_size = -1;
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *p = &op->params[i];
        if (is_image(p) && !is_output(p) && p->channels == CLV_CHANNELS(1))
            l->takes_gray = 1;
        if (is_image(p)) {
            if (is_output(p) && (p->flags & CLV_PARAM_FREE_SIZE) && l->free_size < 0) {
                l->free_size = i;
                add_opt(l, "--size", OPT_SIZE, i, -1);
            }
            /* a type neither fixed nor taken from its like: the caller's */
            const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
            if (is_output(p) && !(p->like_flags & CLV_LIKE_TYPE) && (tm & (tm - 1)) &&
                !find_opt(l, "--type"))
                add_opt(l, "--type", OPT_TYPE, i, -1);
            if (is_positional(p))
                continue;
        }
        const opt_kind kind = is_image(p) ? OPT_FILE : p->type == CLV_PARAM_BOOL ? OPT_FLAG
                                                                                 : OPT_VALUE;
        dashed(p->name, buf, sizeof buf);
        add_opt(l, buf, kind, i, -1);
        for (const char *s = p->cli_alias; s && *s;) {
            while (*s == ' ')
                s++;
            const char *e = strchr(s, ' ');
            size_t m = e ? (size_t)(e - s) : strlen(s);
            if (m == 0)
                break;
            if (m >= sizeof buf)
                m = sizeof buf - 1;
            memcpy(buf, s, m);
            buf[m] = '\0';
            s += m;
            const clv_param_desc *q = i + 1 < op->nparams ? &op->params[i + 1] : NULL;
            const clv_param_desc *prev = i > 0 ? &op->params[i - 1] : NULL;
            if (p->type == CLV_PARAM_INT && q && q->type == CLV_PARAM_INT &&
                has_word(q->cli_alias, buf))
                add_opt(l, buf, OPT_PAIR, i, i + 1);
            else if (!(p->type == CLV_PARAM_INT && prev && prev->type == CLV_PARAM_INT &&
                       has_word(prev->cli_alias, buf)))
                add_opt(l, buf, kind, i, -1);
        }
    }
}


/* The message of a library check without its "op_name: " prefix. */
static const char *unprefixed(const op_line *l, const char *msg)
{
    const size_t n = strlen(l->op->name);
    if (strncmp(msg, l->op->name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        return msg + n + 2;
    return msg;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* A library message about the numbers, in the command line's words: each
 * parameter the user set is named by the option they set it with
 * ("sigma_x 100 needs..." -> "--sigma 100 needs..."). */
static void in_cli_words(const op_line *l, const char *msg, char *buf, size_t size)
{
    size_t n = 0;
    msg = unprefixed(l, msg);
    for (const char *s = msg; *s && n + 1 < size;) {
        int done = 0;
        if (s == msg || !word_char(s[-1])) {
            for (int i = 0; i < l->op->nparams && !done; i++) {
                const char *name = l->op->params[i].name;
                const size_t m = strlen(name);
                if (l->given_as[i] && strncmp(s, name, m) == 0 && !word_char(s[m])) {
                    int w = snprintf(buf + n, size - n, "%s", l->given_as[i]);
                    if (w > 0)
                        n += (size_t)w < size - n ? (size_t)w : size - n - 1;
                    s += m;
                    done = 1;
                }
            }
        }
        if (!done)
            buf[n++] = *s++;
    }
    buf[n] = '\0';
}

/* Parse v into parameter i (a number, enum or bool) and check it against
 * its rule. 0, or CLV_EXIT_USAGE with the error printed. */
static int set_value(op_line *l, const char *opt, int i, const char *v)
{
    const clv_param_desc *p = &l->op->params[i];
    clv_arg a = {p->name, p->type, {0}};
    char rule[160], msg[256];
    clv_param_rule(p, rule, sizeof rule);
    switch (p->type) {
    case CLV_PARAM_INT:
        if (cli_parse_int(v, INT_MIN, INT_MAX, &a.v.i) != 0)
            return cli_usage_error(l->cmd, "bad %s '%s' (expected an integer, %s)", opt, v, rule);
        break;
    case CLV_PARAM_DOUBLE: {
        const int e = cli_parse_double(v, &a.v.d);
        if (e != 0)
            return cli_usage_error(l->cmd, "bad %s '%s': %s (expected %s)", opt, v,
                                   cli_number_problem(e), rule);
        break;
    }
    case CLV_PARAM_ENUM:
        if (clv_param_enum_value(p, v, &a.v.i) != CLV_OK)
            return cli_usage_error(l->cmd, "bad %s '%s' (expected one of %s)", opt, v, rule);
        break;
    default:
        return cli_usage_error(l->cmd, "%s cannot be given on the command line", opt);
    }
    if (clv_param_check(p, &a, msg, sizeof msg) != CLV_OK)
        return cli_usage_error(l->cmd, "bad %s '%s': %s", opt, v, msg);
    l->args[i] = a;
    l->given[i] = 1;
    l->given_as[i] = opt;
    return 0;
}

static int set_pair(op_line *l, const opt_spec *o, const char *v)
{
    int w, h;
    if (cli_parse_size(v, INT_MIN, INT_MAX, &w, &h) != 0)
        return cli_usage_error(l->cmd, "bad %s '%s' (expected WxH)", o->spelling, v);
    const int ij[2] = {o->param, o->param2}, val[2] = {w, h};
    for (int k = 0; k < 2; k++) {
        const clv_param_desc *p = &l->op->params[ij[k]];
        clv_arg a = CLV_ARG_INT(p->name, val[k]);
        char msg[256];
        if (clv_param_check(p, &a, msg, sizeof msg) != CLV_OK)
            return cli_usage_error(l->cmd, "bad %s '%s': %s", o->spelling, v, msg);
        l->args[ij[k]] = a;
        l->given[ij[k]] = 1;
        l->given_as[ij[k]] = o->spelling;
    }
    return 0;
}

/* The spelling a message names parameter i by. */
static const char *spelling_of(const op_line *l, int i)
{
    const opt_spec *first = NULL;
    for (int k = 0; k < l->nopts; k++) {
        const opt_spec *o = &l->opts[k];
        if (o->kind == OPT_PAIR && (o->param == i || o->param2 == i))
            return o->spelling; /* "--ksize", the spelling that sets both */
        if (o->param == i && o->kind != OPT_SIZE && !first)
            first = o;
    }
    return first ? first->spelling : l->op->params[i].name;
}

/* ---- help -------------------------------------------------------------- */

/* A positional's name: "SRC"; a flow field (2-channel f32 only) "FLOW.flo". */
static void upper(const clv_param_desc *p, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *s = p->name; *s && n + 1 < size; s++)
        buf[n++] = (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s;
    buf[n] = '\0';
    if (p->types == CLV_TYPES(CLV_F32) && p->channels == CLV_CHANNELS(2))
        snprintf(buf + n, size - n, ".flo");
}

/* "(required)", "(default 3)", "(default reflect101)" into buf. */
static void default_text(const clv_param_desc *p, char *buf, size_t size)
{
    if (!is_optional(p))
        snprintf(buf, size, "(required)");
    else if (p->type == CLV_PARAM_ENUM)
        snprintf(buf, size, "(default %s)", clv_param_enum_name(p, (int)p->def));
    else if (p->type == CLV_PARAM_BOOL)
        snprintf(buf, size, "(default %s)", p->def != 0.0 ? "on" : "off");
    else if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_DOUBLE)
        snprintf(buf, size, "(default %s)", cli_num(p->def).s);
    else
        buf[0] = '\0';
}

/* One help entry: left column, then text wrapped to 79 columns. */
static void print_entry(const char *left, const char *text)
{
    enum { INDENT = 23, WIDTH = 79 };
    int col = printf("  %-20s", left);
    if (col > INDENT - 1) {
        printf("\n%*s", INDENT - 1, "");
        col = INDENT - 1;
    }
    for (const char *s = text; *s;) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        const int n = (int)(e - s);
        if (n == 0)
            break;
        if (col + 1 + n > WIDTH && col > INDENT - 1) {
            printf("\n%*s", INDENT - 1, "");
            col = INDENT - 1;
        }
        col += printf(" %.*s", n, s);
        s = e;
    }
    printf("\n");
}

/* Text wrapped to 79 columns. */
static void print_paragraph(const char *text)
{
    int col = 0;
    for (const char *s = text; *s;) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        const int n = (int)(e - s);
        if (n == 0)
            break;
        if (col && col + 1 + n > 79) {
            printf("\n");
            col = 0;
        }
        col += printf("%s%.*s", col ? " " : "", n, s);
        s = e;
    }
    printf("\n");
}

static void print_help(const op_line *l)
{
    const clv_op_desc *op = l->op;
    char buf[SPELL_MAX], rule[200];
    printf("usage: clv %s [options]", l->cmd);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < op->nparams; i++) {
            const clv_param_desc *p = &op->params[i];
            if (is_positional(p) && is_output(p) == pass) {
                upper(p, buf, sizeof buf);
                printf(" %s", buf);
            }
        }
    printf("\n");
    char text[1400];
    snprintf(text, sizeof text, "%s.%s%s%s%s%s The library's operation: %s (C: clv_%s).",
             op->summary, op->doc ? " " : "", op->doc ? op->doc : "",
             op->blocking ? " Waits for the device: " : "", op->blocking ? op->blocking : "",
             op->blocking ? "." : "", op->name, op->name);
    print_paragraph(text);
    printf("\n");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < op->nparams; i++) {
            const clv_param_desc *p = &op->params[i];
            if (!is_positional(p) || is_output(p) != pass)
                continue;
            upper(p, buf, sizeof buf);
            clv_param_rule(p, rule, sizeof rule);
            char text[400];
            snprintf(text, sizeof text, "%s: %s", p->label ? p->label : p->name,
                     pass ? (p->doc ? p->doc : "") : rule);
            print_entry(buf, text);
        }
    printf("\noptions:\n");
    for (int k = 0; k < l->nopts; k++) {
        const opt_spec *o = &l->opts[k];
        const clv_param_desc *p = &op->params[o->param];
        char left[64], text[600];
        switch (o->kind) {
        case OPT_PAIR:
            snprintf(left, sizeof left, "%s WxH", o->spelling);
            snprintf(text, sizeof text, "%s and %s at once", p->name, op->params[o->param2].name);
            print_entry(left, text);
            continue;
        case OPT_SIZE:
            snprintf(left, sizeof left, "%s WxH", o->spelling);
            snprintf(text, sizeof text, "the size of %s, each side 1..%d (required)", p->name,
                     CLV_MAX_DIMENSION);
            print_entry(left, text);
            continue;
        case OPT_TYPE:
            snprintf(left, sizeof left, "%s T", o->spelling);
            snprintf(text, sizeof text, "the pixel type of %s: u8, u16 or f32 (default: %s)",
                     p->name, p->like ? "as the operation's rule gives, from its inputs" : "-");
            print_entry(left, text);
            continue;
        case OPT_FLAG:
            snprintf(left, sizeof left, "%s", o->spelling);
            break;
        case OPT_FILE:
            snprintf(left, sizeof left, "%s FILE", o->spelling);
            break;
        case OPT_VALUE:
            snprintf(left, sizeof left, "%s %s", o->spelling,
                     p->type == CLV_PARAM_ENUM ? "NAME" : p->type == CLV_PARAM_INT ? "N" : "X");
            break;
        }
        dashed(p->name, buf, sizeof buf);
        if (strcmp(o->spelling, buf) != 0) {
            snprintf(text, sizeof text, "the same as %s", buf);
            print_entry(left, text);
            continue;
        }
        clv_param_rule(p, rule, sizeof rule);
        char def[96], special[128] = "";
        default_text(p, def, sizeof def);
        if (p->special_doc)
            snprintf(special, sizeof special, " (%s)", p->special_doc);
        snprintf(text, sizeof text, "%s%s%s%s%s%s %s", p->doc ? p->doc : "",
                 p->unit ? ", " : "", p->unit ? p->unit : "",
                 rule[0] && o->kind != OPT_FLAG ? "; " : "",
                 o->kind != OPT_FLAG ? rule : "", special, def);
        print_entry(left, text);
    }
    if (l->takes_gray)
        print_entry("--gray 601|709", "weights of the colour -> gray conversion of a colour "
                                      "file: Rec. 601 (OpenCV's, the default) or Rec. 709");
    printf("\nInput files are converted on the device to what the operation takes: colour to\n"
           "gray, gray to RGB, RGBA to RGB, 16-bit to f32 (full scale 1.0).\n");
    printf("\nglobal options (--device, --time, --verbose) may come before or after the\n"
           "command name.\n");
}

/* ---- the command line -------------------------------------------------- */

static int parse_line(op_line *l, int argc, char **argv, int *help)
{
    const clv_op_desc *op = l->op;
    const char *pos[MAX_PARAMS + 1];
    int npos = 0, rc;
    cli_args a;
    const char *name = NULL, *p = NULL;
    int k;
    *help = 0;
    for (int i = 0; i < MAX_PARAMS; i++)
        l->out_type[i] = -1;
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *d = &op->params[i];
        l->args[i] = (clv_arg){d->name, d->type, {0}};
        if (d->type == CLV_PARAM_DOUBLE)
            l->args[i].v.d = d->def;
        else if (is_scalar(d))
            l->args[i].v.i = (int)d->def;
    }
    cli_args_init(&a, l->cmd, argc, argv);
    while ((k = cli_args_next(&a, &name, &p)) != 0) {
        if (k == 2) {
            if (npos <= MAX_PARAMS)
                pos[npos++] = p;
            continue;
        }
        if (cli_wants_help(name)) {
            *help = 1;
            return 0;
        }
        if (l->takes_gray && strcmp(name, "--gray") == 0 && !find_opt(l, name)) {
            if ((rc = cli_args_gray(&a, name, &l->gray)) != 0)
                return rc;
            continue;
        }
        const opt_spec *o = find_opt(l, name);
        if (!o)
            return cli_usage_error(l->cmd, "unknown option '%s'", name);
        if (o->kind == OPT_FLAG) {
            if (a.inline_value)
                return cli_usage_error(l->cmd, "option %s takes no value", name);
            l->args[o->param].v.i = 1;
            l->given[o->param] = 1;
            continue;
        }
        const char *v = cli_args_value(&a, name);
        if (!v)
            return CLI_EXIT_USAGE;
        switch (o->kind) {
        case OPT_VALUE:
            rc = set_value(l, o->spelling, o->param, v);
            break;
        case OPT_PAIR:
            rc = set_pair(l, o, v);
            break;
        case OPT_SIZE:
            rc = cli_parse_size(v, 1, CLV_MAX_DIMENSION, &l->size_w, &l->size_h) != 0
                     ? cli_usage_error(l->cmd, "bad %s '%s' (expected WxH, each 1..%d)",
                                       o->spelling, v, CLV_MAX_DIMENSION)
                     : 0;
            break;
        case OPT_FILE:
            rc = v[0] ? 0 : cli_usage_error(l->cmd, "%s needs a file name", o->spelling);
            l->path[o->param] = v;
            break;
        case OPT_TYPE: {
            const unsigned tm = op->params[o->param].types ? op->params[o->param].types
                                                           : CLV_TYPES_ALL;
            int t = -1;
            for (int k = CLV_U8; k <= CLV_F32; k++)
                if ((tm & CLV_TYPES(k)) && strcmp(v, clv_pixel_type_name((clv_pixel_type)k)) == 0)
                    t = k;
            rc = t < 0 ? cli_usage_error(l->cmd, "bad %s '%s' (expected u8, u16 or f32)",
                                         o->spelling, v)
                       : 0;
            l->out_type[o->param] = t;
            break;
        }
        default:
            rc = 0;
            break;
        }
        if (rc)
            return rc;
    }
    /* positionals: the required images, inputs first */
    int want = 0;
    char names[160] = "";
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < op->nparams; i++) {
            const clv_param_desc *d = &op->params[i];
            if (is_positional(d) && is_output(d) == pass) {
                char up[SPELL_MAX];
                upper(d, up, sizeof up);
                size_t n = strlen(names);
                snprintf(names + n, sizeof names - n, "%s%s", n ? " " : "", up);
                if (want < npos)
                    l->path[i] = pos[want];
                want++;
            }
        }
    if (npos != want)
        return cli_usage_error(l->cmd, "expected %s (got %d argument%s)", names, npos,
                               npos == 1 ? "" : "s");
    for (int i = 0; i < npos; i++)
        if (!pos[i][0])
            return cli_usage_error(l->cmd, "an empty file name");
    for (int i = 0; i < op->nparams; i++) {
        const clv_param_desc *d = &op->params[i];
        if (is_image(d) && !is_positional(d) && !is_optional(d) && !l->path[i])
            return cli_usage_error(l->cmd, "missing %s FILE", spelling_of(l, i));
        if (is_scalar(d) && !is_optional(d) && !l->given[i]) {
            char rule[160];
            clv_param_rule(d, rule, sizeof rule);
            return cli_usage_error(l->cmd, "missing %s (%s: %s)", spelling_of(l, i), d->name,
                                   rule);
        }
    }
    if (l->free_size >= 0 && l->size_w == 0)
        return cli_usage_error(l->cmd, "missing --size WxH");
    /* the rules between parameters, before any file is read */
    clv_arg given[MAX_PARAMS];
    int n = 0;
    for (int i = 0; i < op->nparams; i++)
        if (is_scalar(&op->params[i]))
            given[n++] = l->args[i];
    char msg[400], words[600];
    if (clv_op_check(NULL, op, given, n, msg, sizeof msg) != CLV_OK) {
        in_cli_words(l, msg, words, sizeof words);
        return cli_usage_error(l->cmd, "%s", words);
    }
    /* outputs: distinct files */
    const char *outs[MAX_PARAMS], *what[MAX_PARAMS];
    int nout = 0;
    for (int i = 0; i < op->nparams; i++)
        if (is_image(&op->params[i]) && is_output(&op->params[i]) && l->path[i]) {
            outs[nout] = l->path[i];
            what[nout++] = op->params[i].name;
        }
    return cli_distinct_outputs(l->cmd, nout, outs, what);
}

/* ---- files in and out --------------------------------------------------- */

/* Read parameter p's file (a .flo file as a flow field). */
static int read_input(const op_line *l, const char *path, clv_host_image *out)
{
    return cli_has_ext(path, ".flo") ? cli_read_flo(l->cmd, path, out)
                                     : cli_read(l->cmd, path, out);
}

/* An uploaded input as its parameter takes it (see the top and cli.h). */
int cli_to_accepted(const char *cmd, clv_context *ctx, const clv_param_desc *p,
                    cli_gray_weights gray, const char *path, clv_image **img)
{
    const unsigned cm = p->channels ? p->channels : CLV_CHANNELS_1_4;
    const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
    for (int step = 0; step < 2; step++) {
        const int cn = clv_image_channels(*img);
        const clv_pixel_type t = clv_image_type(*img);
        int want_cn = cn, code = -1;
        clv_pixel_type want_t = t;
        if (step == 0 && !(cm & CLV_CHANNELS(cn))) {
            if (cn >= 3 && (cm & CLV_CHANNELS(1))) {
                want_cn = 1;
                code = gray == CLI_GRAY_709 ? CLV_COLOR_RGB2GRAY_709 : CLV_COLOR_RGB2GRAY;
            } else if (cn == 1 && (cm & CLV_CHANNELS(3))) {
                want_cn = 3;
                code = CLV_COLOR_GRAY2RGB;
            } else if (cn == 4 && (cm & CLV_CHANNELS(3))) {
                want_cn = 3;
                code = CLV_COLOR_RGBA2RGB;
            }
        } else if (step == 1 && !(tm & CLV_TYPES(t)) && t == CLV_U16 && (tm & CLV_TYPES(CLV_F32))) {
            want_t = CLV_F32; /* 16-bit full scale -> 1.0 */
        }
        if (want_cn == cn && want_t == t)
            continue;
        clv_image *out = NULL;
        clv_status s = clv_image_create(ctx, clv_image_width(*img), clv_image_height(*img),
                                        want_cn, want_t, &out);
        if (s == CLV_OK)
            s = code >= 0 ? clv_convert_color(ctx, *img, out, (clv_color_code)code)
                          : clv_convert_type(ctx, *img, out, 1.0 / 65535.0);
        if (s != CLV_OK) {
            clv_image_release(out);
            return cli_fail_status(cmd, ctx, s, "cannot convert the input");
        }
        clv_image_release(*img);
        *img = out;
    }
    const int cn = clv_image_channels(*img);
    const clv_pixel_type t = clv_image_type(*img);
    if (!(tm & CLV_TYPES(t)) || !(cm & CLV_CHANNELS(cn))) {
        char rule[160];
        clv_param_rule(p, rule, sizeof rule);
        cli_error(cmd, "'%s' is a %d-channel %s image; %s takes %s", path, cn,
                  clv_pixel_type_name(t), p->name, rule);
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

static int run_line(const cli_globals *g, op_line *l)
{
#ifdef CLV_CLI_PARSE_ONLY
    /* tests/fuzz/fuzz_args: the command line alone, no device or files */
    (void)g;
    (void)l;
    return 0;
#endif
    const clv_op_desc *op = l->op;
    clv_host_image host[MAX_PARAMS];
    clv_image *img[MAX_PARAMS];
    clv_context *ctx = NULL;
    cli_outputs outs;
    double wall_ms = 0.0, device_ms = 0.0;
    char what[96];
    int rc = 0;
    memset(host, 0, sizeof host);
    memset(img, 0, sizeof img);
    cli_outputs_init(&outs);
    snprintf(what, sizeof what, "%s failed", op->name);

    for (int i = 0; i < op->nparams && !rc; i++)
        if (is_image(&op->params[i]) && !is_output(&op->params[i]) && l->path[i])
            rc = read_input(l, l->path[i], &host[i]);
    if (!rc)
        rc = cli_context(l->cmd, g, g->time, &ctx);
    for (int i = 0; i < op->nparams && !rc; i++) {
        if (!is_image(&op->params[i]) || is_output(&op->params[i]))
            continue;
        if (l->path[i]) {
            rc = cli_upload(l->cmd, ctx, &host[i], &img[i]);
            if (!rc)
                rc = cli_to_accepted(l->cmd, ctx, &op->params[i], l->gray, l->path[i], &img[i]);
            clv_host_image_free(&host[i]);
        }
        l->args[i].v.p = img[i];
    }
    /* outputs, shaped from the inputs and numbers */
    for (int i = 0; i < op->nparams && !rc; i++) {
        const clv_param_desc *p = &op->params[i];
        if (!is_image(p) || !is_output(p) || !l->path[i])
            continue;
        int w = 0, h = 0, c = 0;
        clv_pixel_type t = CLV_U8;
        char msg[300];
        if (clv_op_output_shape(op, l->args, op->nparams, i, &w, &h, &c, &t, msg, sizeof msg) !=
            CLV_OK) {
            cli_error(l->cmd, "%s", unprefixed(l, msg));
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if (i == l->free_size) {
            w = l->size_w;
            h = l->size_h;
        }
        if (l->out_type[i] >= 0)
            t = (clv_pixel_type)l->out_type[i];
        clv_status s = clv_image_create(ctx, w, h, c, t, &img[i]);
        if (s != CLV_OK)
            rc = cli_fail_status(l->cmd, ctx, s, "cannot create the result image");
        l->args[i].v.p = img[i];
    }
    if (!rc)
        rc = cli_run_op(l->cmd, what, ctx, op, l->args, op->nparams, g->time ? &wall_ms : NULL,
                        g->time ? &device_ms : NULL);
    /* One image output is written in place (the library's writes are
     * atomic); several are staged and renamed together, so a failure
     * writes none. */
    int nout = 0;
    for (int i = 0; i < op->nparams; i++)
        nout += img[i] && is_output(&op->params[i]);
    for (int i = 0; i < op->nparams && !rc; i++) {
        if (!is_image(&op->params[i]) || !is_output(&op->params[i]) || !img[i])
            continue;
        rc = cli_download(l->cmd, ctx, img[i], &host[i]);
        if (rc)
            break;
        if (cli_has_ext(l->path[i], ".flo"))
            rc = cli_outputs_flo(l->cmd, &outs, l->path[i], &host[i]);
        else if (nout == 1)
            rc = cli_write(l->cmd, l->path[i], &host[i]);
        else
            rc = cli_outputs_image(l->cmd, &outs, l->path[i], &host[i]);
    }
    if (!rc)
        rc = cli_outputs_commit(l->cmd, &outs);
    if (!rc && g->time)
        cli_print_time(wall_ms, device_ms);
    cli_outputs_free(&outs);
    for (int i = 0; i < op->nparams; i++) {
        clv_image_release(img[i]);
        clv_host_image_free(&host[i]);
    }
    cli_context_release(g, ctx);
    return rc;
}

/* A new op_line for op with its options built, or NULL (error printed). */
static op_line *new_line(const clv_op_desc *op, const char *cmd)
{
    op_line *l = calloc(1, sizeof *l);
    if (!l) {
        cli_error(cmd, "out of memory");
        return NULL;
    }
    l->op = op;
    l->cmd = cmd;
    build_options(l);
    return l;
}

int cli_cmd_op(const cli_globals *g, const clv_op_desc *op, int argc, char **argv)
{
    op_line *l = new_line(op, argv[0]);
    if (!l)
        return CLI_EXIT_RUNTIME;
    int help = 0;
    int rc = parse_line(l, argc, argv, &help);
    if (!rc && help)
        print_help(l);
    else if (!rc)
        rc = run_line(g, l);
    free(l);
    return rc;
}

int cli_op_help(const clv_op_desc *op, const char *cmd)
{
    op_line *l = new_line(op, cmd);
    if (!l)
        return CLI_EXIT_RUNTIME;
    print_help(l);
    free(l);
    return CLI_EXIT_OK;
}

/* The descriptor as the command line sees it, one tab-separated line per
 * positional and option (for scripts and the generated bad-command-line
 * tests): SPELLING KIND PARAM TYPE MIN MAX FLAGS SPECIAL DEFAULT CHOICES.
 * KIND: in, out (positionals), value, pair (PARAM is "a,b"), flag, file,
 * size. FLAGS: comma-separated required, min_open, max_open, odd, special,
 * special_below, free_size. CHOICES: enum names, or for images the accepted
 * types and channel counts ("u8,u16,f32;1,2,3,4"). */
static void print_number(double v)
{
    if (v == HUGE_VAL)
        printf("\tinf");
    else if (v == -HUGE_VAL)
        printf("\t-inf");
    else
        printf("\t%.17g", v);
}

static void print_param_line(const char *spelling, const char *kind, const clv_param_desc *p,
                             const clv_param_desc *p2)
{
    static const char *const type_names[] = {"image", "int", "double", "bool", "enum"};
    printf("%s\t%s\t%s%s%s\t%s", spelling, kind, p->name, p2 ? "," : "", p2 ? p2->name : "",
           (int)p->type < 5 ? type_names[p->type] : "other");
    print_number(p->min);
    print_number(p->max);
    const struct { unsigned bit; const char *name; } fl[] = {
        {CLV_PARAM_MIN_OPEN, "min_open"}, {CLV_PARAM_MAX_OPEN, "max_open"},
        {CLV_PARAM_ODD, "odd"},           {CLV_PARAM_HAS_SPECIAL, "special"},
        {CLV_PARAM_SPECIAL_BELOW, "special_below"}, {CLV_PARAM_FREE_SIZE, "free_size"}};
    int n = 0;
    printf("\t");
    if (!is_optional(p) && strcmp(kind, "type") != 0)
        n += printf("required") > 0;
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++)
        if (p->flags & fl[k].bit)
            n += printf("%s%s", n ? "," : "", fl[k].name) > 0;
    if (!n)
        printf("-");
    print_number(p->special);
    print_number(p->def);
    printf("\t");
    if (p->type == CLV_PARAM_ENUM) {
        for (int k = 0; k < p->n_enum; k++)
            printf("%s%s", k ? "," : "", p->enum_names[k]);
    } else if (p->type == CLV_PARAM_IMAGE) {
        const unsigned tm = p->types ? p->types : CLV_TYPES_ALL;
        const unsigned cm = p->channels ? p->channels : CLV_CHANNELS_1_4;
        int k = 0;
        for (int t = CLV_U8; t <= CLV_F32; t++)
            if (tm & CLV_TYPES(t))
                printf("%s%s", k++ ? "," : "", clv_pixel_type_name((clv_pixel_type)t));
        printf(";");
        k = 0;
        for (int c = 1; c <= 30; c++)
            if (cm & CLV_CHANNELS(c))
                printf("%s%d", k++ ? "," : "", c);
    } else {
        printf("-");
    }
    printf("\n");
}

int cli_op_params(const clv_op_desc *op, const char *cmd)
{
    op_line *l = new_line(op, cmd);
    if (!l)
        return CLI_EXIT_RUNTIME;
    char buf[SPELL_MAX];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < op->nparams; i++) {
            const clv_param_desc *p = &op->params[i];
            if (is_positional(p) && is_output(p) == pass) {
                upper(p, buf, sizeof buf);
                print_param_line(buf, pass ? "out" : "in", p, NULL);
            }
        }
    static const char *const kinds[] = {"value", "pair", "flag", "file", "size", "type"};
    for (int k = 0; k < l->nopts; k++) {
        const opt_spec *o = &l->opts[k];
        print_param_line(o->spelling, kinds[o->kind], &op->params[o->param],
                         o->kind == OPT_PAIR ? &op->params[o->param2] : NULL);
    }
    free(l);
    return CLI_EXIT_OK;
}

/* The operation command `name` runs: every supported operation whose CLI
 * or descriptor name it is, the first whose options cover all those on the
 * command line (bilateral_grid_cross for grid --edge FILE), else the first
 * of them; NULL for none. */
const clv_op_desc *cli_op_pick(const char *name, int argc, char **argv)
{
    const clv_op_desc *first = NULL;
    op_line *l = calloc(1, sizeof *l);
    if (!l)
        return clv_op_find(name);
    for (int i = 0; i < clv_op_count(); i++) {
        const clv_op_desc *op = clv_op_get(i);
        const int named = strcmp(op->name, name) == 0 ||
                          (op->cli_name && strcmp(op->cli_name, name) == 0);
        if (!named || !cli_op_supported(op))
            continue;
        if (!first)
            first = op;
        memset(l, 0, sizeof *l);
        l->op = op;
        build_options(l);
        int fits = 1;
        for (int k = 1; k < argc && fits; k++) {
            const char *arg = argv[k];
            if (strcmp(arg, "--") == 0)
                break;
            if (arg[0] != '-' || arg[1] == '\0' || cli_wants_help(arg))
                continue;
            char opt[SPELL_MAX];
            const size_t n = strcspn(arg, "=");
            snprintf(opt, sizeof opt, "%.*s", (int)(n < sizeof opt ? n : sizeof opt - 1), arg);
            if (!find_opt(l, opt) && !(l->takes_gray && strcmp(opt, "--gray") == 0))
                fits = 0;
        }
        if (fits) {
            free(l);
            return op;
        }
    }
    free(l);
    return first;
}

/* Every operation command `name` can run, for its help: 0 when none. */
int cli_op_help_all(const char *name)
{
    int n = 0;
    for (int i = 0; i < clv_op_count(); i++) {
        const clv_op_desc *op = clv_op_get(i);
        if ((strcmp(op->name, name) == 0 || (op->cli_name && strcmp(op->cli_name, name) == 0)) &&
            cli_op_supported(op)) {
            if (n++)
                printf("\n");
            (void)cli_op_help(op, name);
        }
    }
    return n;
}
