#include "clock.h"

double fslab_now(void)
{
	return (double)fslab_now_ns() / 1e9;
}
