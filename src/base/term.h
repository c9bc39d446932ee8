/*
 * Text for a person at a terminal: how wide to write it, whether to colour
 * it, words wrapped to that width, and --help with the installed docs' path.
 *
 * Width: $COLUMNS when it is a number from 20 to 1000; else the terminal's
 * own width when the stream is one; else 80.  Colour: never when $NO_COLOR
 * is set and not empty (no-color.org); on stdout and stderr always when
 * $CLICOLOR_FORCE is set and not "0" (a pipe to `less -R`); else only when
 * the stream is a terminal and $TERM is not "dumb".  Nothing here keeps state: each call reads the
 * environment.
 */
#ifndef TM_TERM_H
#define TM_TERM_H

#include <stdbool.h>
#include <stdio.h>

/* The columns text written to F may use (see above); at least 20. */
int tm_term_width(FILE *f);

/* Whether text written to F may carry colour (see above). */
bool tm_term_color(FILE *f);

/* What a coloured word says: bad (red: a problem, a kill, a worse
 * figure), warn (yellow), good (green: a better figure, the recommended
 * arm). */
enum tm_tone { TM_TONE_BAD, TM_TONE_WARN, TM_TONE_GOOD };

/* Writes S to F, in TONE's colour when tm_term_color(F). */
void tm_term_put(FILE *f, enum tm_tone tone, const char *s);

/* Writes S to F, in TONE's colour when COLOR (decided by tm_term_color on
 * the stream the text ends up on, for text gathered first). */
void tm_term_put_if(FILE *f, bool color, enum tm_tone tone, const char *s);

/*
 * The tone of a run's outcome, by its stored name: bad for oom-killed,
 * killed, failed and invalid, warn for timeout and interrupted; false for
 * the others (shown plain).
 */
bool tm_term_outcome_tone(const char *name, enum tm_tone *tone);

/*
 * The display width of S in columns: UTF-8 code points, colour escapes
 * (ESC [ ... m) counting none.
 */
int tm_term_text_width(const char *s);

/*
 * Writes TEXT's words (split at spaces) to F, the cursor being at column
 * COL: a word that would end past WIDTH starts a new line indented by
 * INDENT columns.  Ends with a newline.  A word longer than a line is
 * written whole.
 */
void tm_term_wrap(FILE *f, const char *text, int col, int indent, int width);

/*
 * Writes TEXT (lines ending in '\n') to F as help is: an item ("  -i,
 * --interval DUR   help") or a paragraph with a line longer than WIDTH is
 * joined and broken again at spaces, going on under the item's second
 * column, or at the paragraph's indent.  A paragraph at column 0 ends at a
 * heading ("examples:"), a usage line or "Exit status:".  The synopsis
 * (from "usage:" to a blank line) is broken line by line, going on 4
 * columns in.  Lines under "examples:" are shell commands (see
 * tm_help_write).  Lines without a space to break at are written whole.
 */
void tm_term_write_wrapped(FILE *f, const char *text, int width);

/*
 * Writes TEXT (lines ending in '\n') to F, each line longer than WIDTH
 * broken at spaces on its own (no line joins another): a two-column line
 * ("  anon        peak ...") goes on under its second column, any other 2
 * columns further in than it starts.  Lines without a space to break at
 * are written whole.
 */
void tm_term_write_lines(FILE *f, const char *text, int width);

/*
 * --help: writes TEXT to F as tm_term_write_wrapped at tm_term_width(F),
 * each "docs/NAME.md" first written with the folder the docs are installed
 * in when this binary is an installed one (mk/install.mk's docdir, found
 * from the binary's own folder as its libraries are), else left as is (a
 * checkout, where docs/ is beside build/).  Lines under "examples:" are
 * shell commands: one broken for width ends in " \" and goes on 4 columns
 * further in, never inside quotes.
 */
void tm_help_write(FILE *f, const char *text);

#endif
