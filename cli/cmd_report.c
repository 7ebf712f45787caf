#include "cli.h"
#include "study.h"
int cmd_report(int argc, char **argv)
{
    (void)argc; (void)argv;
    return 1;
}
