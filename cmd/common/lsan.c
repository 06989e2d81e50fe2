/* lsan.c - LeakSanitizer suppressions for every tool (make SAN=1):
 * fontconfig and Graphviz keep caches for the life of the process (font
 * lists, plugin tables) and never free them; those are not leaks of the
 * tools.  The sanitizer runtime looks this function up; normal builds never
 * call it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libfontconfig.so\nleak:libgvc.so\nleak:libpango\nleak:libcairo\nleak:libglib\n";
}
