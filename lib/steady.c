/* The PTS steady-state rule (steady.h). */
#include "steady.h"

#include <math.h>
#include <string.h>

bool fslab_steady_check(const double *v, size_t n, struct fslab_steady_window *w)
{
	const size_t k = FSLAB_STEADY_WINDOW;
	const double xm = (double)(k + 1) / 2.0; /* mean of the rounds 1..k */
	double sum = 0, sxy = 0, sxx = 0;

	memset(w, 0, sizeof(*w));
	if (n < k)
		return false;
	v += n - k;
	w->first = (unsigned)(n - k + 1);
	w->last = (unsigned)n;
	w->min = w->max = v[0];
	for (size_t i = 0; i < k; i++) {
		sum += v[i];
		w->min = v[i] < w->min ? v[i] : w->min;
		w->max = v[i] > w->max ? v[i] : w->max;
	}
	w->mean = sum / (double)k;
	for (size_t i = 0; i < k; i++) {
		double dx = (double)(i + 1) - xm;

		sxy += dx * (v[i] - w->mean);
		sxx += dx * dx;
	}
	w->slope = sxy / sxx;
	w->range_ok = w->max - w->min <= FSLAB_STEADY_RANGE * w->mean;
	w->slope_ok = fabs(w->slope) * (double)(k - 1) <= FSLAB_STEADY_SLOPE * w->mean;
	return w->mean > 0 && w->range_ok && w->slope_ok;
}

double fslab_steady_estimate_s(unsigned long long file_bytes, unsigned long long round_bytes,
			       double write_bytes_s, double op_s)
{
	double round;

	if (!(write_bytes_s > 0))
		return -1;
	round = 2.0 * (double)round_bytes / write_bytes_s +
		(double)(round_bytes / FSLAB_STEADY_RAND_RECORD) * op_s;
	return (double)file_bytes / write_bytes_s + FSLAB_STEADY_ROUNDS_MAX * round;
}

unsigned long long fslab_steady_file_bytes(unsigned long long free_bytes,
					   unsigned long long round_bytes)
{
	unsigned long long share = free_bytes / FSLAB_STEADY_FILE_FREE_DIVISOR, b = share;

	if (round_bytes <= FSLAB_STEADY_FILE_MAX / FSLAB_STEADY_FILE_ROUNDS &&
	    FSLAB_STEADY_FILE_ROUNDS * round_bytes < b)
		b = FSLAB_STEADY_FILE_ROUNDS * round_bytes;
	if (b > FSLAB_STEADY_FILE_MAX)
		b = FSLAB_STEADY_FILE_MAX;
	if (b < FSLAB_STEADY_FILE_MIN)
		b = FSLAB_STEADY_FILE_MIN;
	b = b / FSLAB_STEADY_FILE_UNIT * FSLAB_STEADY_FILE_UNIT;
	return b <= share ? b : 0;
}
