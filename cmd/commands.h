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

#endif
