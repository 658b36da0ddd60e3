/* nbrun — entry point. Only main() exits. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "nb_config.h"

int main(int argc, char **argv)
{
	struct nb_cli cli;
	struct nb_error err = { { 0 } };
	if (!nb_cli_parse(argc, argv, &cli, &err)) {
		fprintf(stderr, "nbrun: %s (try 'nbrun --help')\n", err.msg);
		return 2;
	}
	switch (cli.cmd) {
	case NB_CMD_HELP:
		nb_cli_usage(stdout);
		return 0;
	case NB_CMD_VERSION:
		printf("nbrun %s%s\n", NB_VERSION, NB_STATIC_BUILD ? " (static)" : "");
		return 0;
	default:
		fprintf(stderr, "nbrun: this command is not built yet\n");
		return 2;
	}
}
