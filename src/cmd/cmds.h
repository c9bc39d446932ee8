/*
 * The subcommands.  Each lives in src/cmd/<name>.c as cmd_<name>(argc, argv),
 * with argv[0] the subcommand's name.  It parses its own options, calls
 * library code, and returns the process exit status.
 */
#ifndef TM_CMDS_H
#define TM_CMDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_heap(int argc, char **argv);
int cmd_serve(int argc, char **argv);

#endif
