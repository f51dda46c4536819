/* The smallest program using an installed libclrsig: decode one blob. */
#include <stdio.h>

#include <clrsig/clrsig.h>

int main(void)
{
    static const uint8_t blob[] = { 0x00, 0x02, 0x08, 0x0E, 0x1D, 0x0E };
    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    clrsig_arena a;
    clrsig_arena_init(&a, mem, sizeof mem);
    clrsig_sig s;
    clrsig_error e;
    if (clrsig_parse(blob, sizeof blob, CLRSIG_KIND_METHOD, NULL, &a, &s, &e) != CLRSIG_OK) {
        printf("error: %s at %u\n", clrsig_strerror(e.code), e.offset);
        return 1;
    }
    char text[256];
    clrsig_format_opts o = { .style = CLRSIG_STYLE_CSHARP };
    if (clrsig_format_sig(&s, &o, NULL, text, sizeof text, NULL, &e) != CLRSIG_OK)
        return 1;
    puts(text);
    return 0;
}
