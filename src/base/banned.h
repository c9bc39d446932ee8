/* Functions that invite overflows or unchecked parsing; use the safe ones. */
#ifndef TM_BANNED_H
#define TM_BANNED_H

#define BANNED(f) sorry_##f##_is_banned_in_tidemark

#undef strcpy
#define strcpy(d, s) BANNED(strcpy)
#undef strcat
#define strcat(d, s) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(a, b) BANNED(strtok)
#undef atoi
#define atoi(a) BANNED(atoi)
#undef atol
#define atol(a) BANNED(atol)
#undef gets
#define gets(a) BANNED(gets)

#endif
