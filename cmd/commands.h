/* One function per subcommand: int cmd_NAME(int argc, char **argv), where
 * argv[0] is the subcommand's name.  Each returns an FSLAB_EXIT_* status. */
#ifndef FSLAB_COMMANDS_H
#define FSLAB_COMMANDS_H

int cmd_setup(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_teardown(int argc, char **argv);
int cmd_spec(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);

struct option;
/* After getopt_long (with opterr = 0) returned '?' or ':': prints one line
 * naming the bad option (the closest known one as "did you mean") and
 * 'fslab CMD --help' as the fix (cmd/main.c). */
void fslab_cli_bad_option(const char *cmd, const struct option *opts, char **argv);

#endif
