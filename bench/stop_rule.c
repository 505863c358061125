/* The stopping rules' names and the manifest's words for why a test
 * stopped (stop_rule.h); the rule's judgement is lib/stats.c's. */
#include "stop_rule.h"

#include "names.h"

static const char *const stop_rule_names[FSLAB_STOP_RULE_MAX] = {
	[FSLAB_STOP_RULE_DECIDED] = "decided",
	[FSLAB_STOP_RULE_CI] = "ci",
	[FSLAB_STOP_RULE_FIXED] = "fixed",
};

static const char *const stop_why_names[FSLAB_STOP_WHY_MAX] = {
	[FSLAB_STOP_OPEN] = "open",
	[FSLAB_STOP_DECIDED] = "decided",
	[FSLAB_STOP_UNDECIDABLE] = "undecidable",
	[FSLAB_STOP_MAX_TRIALS] = "max_trials",
	[FSLAB_STOP_NO_DATA] = "no_data",
};

const char *fslab_stop_rule_to_string(enum fslab_stop_rule r)
{
	return r >= 0 && r < FSLAB_STOP_RULE_MAX ? stop_rule_names[r] : "?";
}

enum fslab_stop_rule fslab_stop_rule_from_string(const char *s)
{
	return (enum fslab_stop_rule)fslab_name_index(stop_rule_names, FSLAB_STOP_RULE_MAX, s);
}

const char *fslab_stop_why_to_string(enum fslab_stop_why w)
{
	return w >= 0 && w < FSLAB_STOP_WHY_MAX ? stop_why_names[w] : "?";
}
