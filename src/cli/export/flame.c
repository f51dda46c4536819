/* clrtrace dump --flame: an SVG flame graph of the folded stacks of
 * dump --folded (the same tree, folded.c). The bottom frame ("all") is the
 * whole trace; above each frame, its callees, left to right by name, each
 * as wide as its share of the weight: self time plus its callees' (or, with
 * --calls, the calls that ended on its stack or above it). A frame's colour
 * comes from a hash of its name, so a function has the same colour wherever
 * it appears and in every graph. Hovering shows the <title>: the full name,
 * the value and its share of the total. A name that does not fit is cut
 * from its start ("..Shapes.Scale"), so the method shows. A small script
 * (in the manner of Brendan Gregg's flamegraph.pl) zooms on a clicked frame
 * (its callers stay, full width), searches names by a pattern and
 * highlights the matches with their share, and resets both; without
 * scripts the SVG still reads as a static graph. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/render.h"
#include "export.h"
#include "cli/input/input.h"
#include "base/escape.h"

/* Frames narrower than this many pixels are not drawn (nor their callees,
 * which are narrower still). */
#define FLAME_MIN_FRAME_PX 0.1
/* Layout, in pixels. */
#define FLAME_FRAME_HEIGHT 16
#define FLAME_PAD_X 10
#define FLAME_PAD_TOP 60
#define FLAME_PAD_BOTTOM 10
#define FLAME_FONT_SIZE 12
/* Average glyph width of the font, as a share of its size (for cutting
 * names to fit a frame). */
#define FLAME_FONT_WIDTH 0.59
/* Room kept for "Search" at the right of the title line, left of which the
 * search's "Matched: N%" stands (the subtitle's line is the picture's
 * width). */
#define FLAME_SEARCH_PX 60

typedef struct layout {
    const folded_tree *tr;
    uint64_t *total;          /* per node: its weight plus its callees' */
    uint32_t *kids;           /* children of node i: kids[first[i] .. first[i + 1]) */
    uint32_t *first;
} layout;

static const folded_tree *g_sort_tree; /* for qsort's comparator */

static int by_name(const void *a, const void *b)
{
    const folded_node *n = g_sort_tree->nodes;
    return strcmp(n[*(const uint32_t *)a].name, n[*(const uint32_t *)b].name);
}

static int build(layout *l, const folded_tree *tr)
{
    uint32_t n = tr->n;
    l->tr = tr;
    l->total = calloc(n, sizeof *l->total);
    l->kids = calloc(n, sizeof *l->kids);
    l->first = calloc((size_t)n + 1, sizeof *l->first);
    if (!l->total || !l->kids || !l->first)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        l->total[i] = tr->nodes[i].weight;
    /* A node is made after its parent: one pass from the end adds up. */
    for (uint32_t i = n; i-- > 1;)
        l->total[tr->nodes[i].parent] += l->total[i];
    for (uint32_t i = 1; i < n; i++)
        l->first[tr->nodes[i].parent + 1]++;
    for (uint32_t i = 0; i < n; i++)
        l->first[i + 1] += l->first[i];
    uint32_t *fill = calloc(n, sizeof *fill);
    if (!fill)
        return -1;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t p = tr->nodes[i].parent;
        l->kids[l->first[p] + fill[p]++] = i;
    }
    free(fill);
    g_sort_tree = tr;
    for (uint32_t i = 0; i < n; i++)
        if (l->first[i + 1] - l->first[i] > 1)
            qsort(l->kids + l->first[i], l->first[i + 1] - l->first[i], sizeof *l->kids,
                  by_name);
    return 0;
}

static void free_layout(layout *l)
{
    free(l->total);
    free(l->kids);
    free(l->first);
}

/* FNV-1a of the name: the colour, in the warm range of flame graphs. */
static void colour(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    h ^= h >> 32;
    *r = 205 + (unsigned)((h & 0xFF) * 50 / 255);
    *g = (unsigned)(((h >> 8) & 0xFF) * 230 / 255);
    *b = (unsigned)(((h >> 16) & 0xFF) * 55 / 255);
}

/* "12.3 ms" or "15 calls". */
static void value_text(const folded_tree *tr, uint64_t v, char *out, size_t cap)
{
    if (tr->by_calls)
        snprintf(out, cap, "%" PRIu64 " %s", v, v == 1 ? "call" : "calls");
    else
        ct_format_duration(v, out, cap);
}

/* Bytes of name's first `chars` characters (UTF-8). */
static size_t prefix_bytes(const char *name, size_t chars)
{
    size_t i = 0;
    for (; name[i] && chars; chars--) {
        i++;
        while (((unsigned char)name[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

static size_t char_count(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void frame(const layout *l, uint32_t i, double x, double y, double w, uint64_t all)
{
    const folded_node *nd = &l->tr->nodes[i];
    const char *name = i ? nd->name : "all";
    char value[48];
    value_text(l->tr, l->total[i], value, sizeof value);
    double pct = all ? 100.0 * (double)l->total[i] / (double)all : 100.0;
    unsigned r, g, b;
    colour(name, &r, &g, &b);
    fputs("<g><title>", stdout);
    ct_xml_text(stdout, name, strlen(name));
    const ct_function *fn = i ? nd->fn : NULL;
    if (fn && fn->src_file) { /* recorded with --srcline: " at Orders.cs:42" */
        const char *file = fn->src_file + fn->src_root;
        fputs(" at ", stdout);
        ct_xml_text(stdout, file, strlen(file));
        printf(":%u", fn->src_line);
    }
    printf(" (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
           "fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
           value, pct, x, y, w, FLAME_FRAME_HEIGHT - 1, r, g, b);
    double fit = (w - 6) / (FLAME_FONT_SIZE * FLAME_FONT_WIDTH);
    if (fit >= 3) {
        size_t chars = (size_t)fit, len = char_count(name);
        printf("<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
        if (len <= chars) {
            ct_xml_text(stdout, name, strlen(name));
        } else {
            /* The end of the name: the method, not the namespace. */
            size_t skip = prefix_bytes(name, len - (chars - 2));
            fputs("..", stdout);
            ct_xml_text(stdout, name + skip, strlen(name + skip));
        }
        fputs("</text>", stdout);
    }
    fputs("</g>\n", stdout);
}

/* The subtitle: "COMMAND LINE: by calls, N calls in all". Cut to the
 * picture's width (its start given up, as a frame's name is: the weighting
 * and the total are what a reader looks for), and to FLAME_SUBTITLE_MAX
 * bytes. */
#define FLAME_SUBTITLE_MAX 4096
static void subtitle(const ct_trace_header *h, const flame_opts *o, const char *value)
{
    char text[FLAME_SUBTITLE_MAX];
    int n = snprintf(text, sizeof text, "%.*s: by %s, %s in all",
                     (int)(h->cmdline_len < sizeof text ? h->cmdline_len : sizeof text),
                     h->cmdline ? h->cmdline : "", o->by_calls ? "calls" : "time", value);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    text[len] = '\0';
    double fit = (o->width - 2.0 * FLAME_PAD_X) / (12 * FLAME_FONT_WIDTH);
    size_t chars = fit > 3 ? (size_t)fit : 3, count = char_count(text);
    if (count <= chars) {
        ct_xml_text(stdout, text, len);
        return;
    }
    size_t skip = prefix_bytes(text, count - (chars - 2));
    fputs("..", stdout);
    ct_xml_text(stdout, text + skip, len - skip);
}

#define FLAME_STR2(x) #x
#define FLAME_STR(x) FLAME_STR2(x)

/* The script: zoom on click, search, reset (each frame a <g> holding a
 * <title> "NAME (VALUE, P%)", a <rect> and maybe a <text>). */
static const char k_script[] =
    "(function () {\n"
    "  var svg = document.documentElement, frames = [], PAD = " FLAME_STR(FLAME_PAD_X) ",\n"
    "      FONT = " FLAME_STR(FLAME_FONT_SIZE) ", GLYPH = " FLAME_STR(FLAME_FONT_WIDTH) ";\n"
    "  var W = parseFloat(svg.getAttribute('width')) - 2 * PAD;\n"
    "  function fit(f, w) {\n"
    "    var t = f.g.getElementsByTagName('text')[0];\n"
    "    if (!t) { t = document.createElementNS(svg.namespaceURI, 'text');\n"
    "      t.setAttribute('y', f.y + 10.5); f.g.appendChild(t); }\n"
    "    var chars = Math.floor((w - 6) / (FONT * GLYPH)), n = f.name;\n"
    "    t.textContent = chars < 3 ? '' : n.length <= chars ? n : '..' + n.slice(n.length - chars + 2);\n"
    "    t.setAttribute('x', parseFloat(f.r.getAttribute('x')) + 3);\n"
    "  }\n"
    "  var gs = document.getElementById('frames').getElementsByTagName('g');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], r = g.getElementsByTagName('rect')[0], tt = g.getElementsByTagName('title')[0];\n"
    "    var m = /^([\\s\\S]*) \\(([^()]*), ([0-9.]+)%\\)$/.exec(tt.textContent);\n"
    "    var f = { g: g, r: r, name: m ? m[1] : tt.textContent, pct: m ? parseFloat(m[3]) : 0,\n"
    "              x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),\n"
    "              y: parseFloat(r.getAttribute('y')), fill: r.getAttribute('fill') };\n"
    "    frames.push(f); g.style.cursor = 'pointer';\n"
    "    g.addEventListener('click', (function (f) { return function () { zoom(f); }; })(f));\n"
    "  }\n"
    "  var reset = document.getElementById('reset');\n"
    "  function zoom(z) {\n"
    "    frames.forEach(function (f) {\n"
    "      var inside = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6 && f.y <= z.y;\n"
    "      var below = f.y > z.y && f.x <= z.x + 1e-6 && f.x + f.w >= z.x + z.w - 1e-6;\n"
    "      if (inside) { var w = f.w / z.w * W; f.r.setAttribute('x', PAD + (f.x - z.x) / z.w * W);\n"
    "        f.r.setAttribute('width', w); f.g.style.display = ''; fit(f, w); }\n"
    "      else if (below) { f.r.setAttribute('x', PAD); f.r.setAttribute('width', W);\n"
    "        f.g.style.display = ''; fit(f, W); }\n"
    "      else f.g.style.display = 'none';\n"
    "    });\n"
    "    reset.style.opacity = z.w < W - 1e-6 ? 1 : 0;\n"
    "  }\n"
    "  reset.addEventListener('click', function () { zoom(frames[0]); });\n"
    "  document.getElementById('search').addEventListener('click', function () {\n"
    "    var p = prompt('Highlight the frames whose name matches (a regular expression; empty: none)', '');\n"
    "    if (p === null) return;\n"
    "    var re = null; try { re = p ? new RegExp(p) : null; } catch (e) { return; }\n"
    "    var spans = [];\n"
    "    frames.forEach(function (f) {\n"
    "      var hit = re && f.name !== 'all' && re.test(f.name);\n"
    "      f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "      if (hit) spans.push([f.x, f.x + f.w]);\n"
    "    });\n"
    "    spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "    var covered = 0, end = -1;\n"
    "    spans.forEach(function (s) { if (s[1] > end) { covered += s[1] - Math.max(s[0], end); end = s[1]; } });\n"
    "    document.getElementById('matched').textContent = re ? 'Matched: ' + (100 * covered / W).toFixed(2) + '%' : '';\n"
    "  });\n"
    "})();\n";

/* Depth of the deepest frame wide enough to draw. */
static uint32_t drawn_depth(const layout *l, double scale)
{
    uint32_t max = 0;
    for (uint32_t i = 1; i < l->tr->n; i++)
        if ((double)l->total[i] * scale >= FLAME_MIN_FRAME_PX && l->tr->nodes[i].depth > max)
            max = l->tr->nodes[i].depth;
    return max;
}

int cli_dump_flame(cli_trace *t, const flame_opts *o)
{
    folded_tree tr;
    int rc = folded_collect(t, o->by_calls, &tr);
    if (!tr.nodes)
        return rc;
    layout l = { 0 };
    uint32_t *stack = malloc((size_t)tr.n * sizeof *stack); /* each node is pushed once */
    uint64_t *offset = calloc(tr.n, sizeof *offset);
    if (build(&l, &tr) != 0 || !stack || !offset) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        free_layout(&l);
        free(stack);
        free(offset);
        folded_tree_free(&tr);
        return 1;
    }
    uint64_t all = l.total[0];
    double avail = (double)o->width - 2 * FLAME_PAD_X;
    double scale = all ? avail / (double)all : 0;
    uint32_t depth = drawn_depth(&l, scale);
    unsigned height = FLAME_PAD_TOP + (depth + 1) * FLAME_FRAME_HEIGHT + FLAME_PAD_BOTTOM;
    const ct_trace_header *h = &t->reader.header;
    const char *title = o->title ? o->title : "Flame Graph";

    printf("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
           "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
           "xmlns=\"http://www.w3.org/2000/svg\">\n"
           "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f2\"/>\n",
           o->width, height, o->width, height, o->width, height);
    printf("<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-family=\"Verdana, sans-serif\" "
           "font-size=\"17\">", o->width / 2.0);
    ct_xml_text(stdout, title, strlen(title));
    char value[48];
    value_text(&tr, all, value, sizeof value);
    printf("</text>\n<text x=\"%.1f\" y=\"44\" text-anchor=\"middle\" "
           "font-family=\"Verdana, sans-serif\" font-size=\"12\" fill=\"#555\">", o->width / 2.0);
    subtitle(h, o, value);
    fputs("</text>\n", stdout);
    printf("<text id=\"reset\" x=\"%d\" y=\"24\" font-family=\"Verdana, sans-serif\" "
           "font-size=\"12\" fill=\"#06c\" style=\"cursor:pointer;opacity:0\">Reset zoom</text>\n"
           "<text id=\"search\" x=\"%u\" y=\"24\" text-anchor=\"end\" "
           "font-family=\"Verdana, sans-serif\" font-size=\"12\" fill=\"#06c\" "
           "style=\"cursor:pointer\">Search</text>\n"
           "<text id=\"matched\" x=\"%u\" y=\"24\" text-anchor=\"end\" "
           "font-family=\"Verdana, sans-serif\" font-size=\"12\" fill=\"#555\"></text>\n",
           FLAME_PAD_X, o->width - FLAME_PAD_X, o->width - FLAME_PAD_X - FLAME_SEARCH_PX);
    printf("<g id=\"frames\" font-family=\"Verdana, sans-serif\" font-size=\"%d\">\n",
           FLAME_FONT_SIZE);

    /* Depth first from the root; offset: the weight left of a node. */
    double base = FLAME_PAD_TOP + (double)depth * FLAME_FRAME_HEIGHT;
    frame(&l, 0, FLAME_PAD_X, base, avail, all);
    size_t sp = 0;
    stack[sp++] = 0;
    while (sp && all) {
        uint32_t p = stack[--sp];
        uint64_t left = offset[p];
        for (uint32_t k = l.first[p]; k < l.first[p + 1]; k++) {
            uint32_t c = l.kids[k];
            offset[c] = left;
            left += l.total[c];
            double w = (double)l.total[c] * scale;
            if (w < FLAME_MIN_FRAME_PX)
                continue;
            frame(&l, c, FLAME_PAD_X + (double)offset[c] * scale,
                  base - (double)tr.nodes[c].depth * FLAME_FRAME_HEIGHT, w, all);
            stack[sp++] = c;
        }
    }
    /* The script last: a browser runs it as it meets it, and it looks the
     * frames up. */
    printf("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
           k_script);
    free_layout(&l);
    free(stack);
    free(offset);
    folded_tree_free(&tr);
    if (fflush(stdout) != 0) {
        perror("clrtrace dump: stdout");
        return 1;
    }
    return rc;
}
