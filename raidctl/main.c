// SPDX-License-Identifier: GPL-2.0
/* raidctl: all of it lives in the library; see rc.h. */
#include "rc.h"

int main(int argc, char **argv)
{
	return rc_main(argc, argv);
}
