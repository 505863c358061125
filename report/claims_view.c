/* The 2023 claims rendered (text and HTML): the first screen's lines and
 * the section with each run's evidence, from the claims claims.c judged
 * once into the model. */
#include "view.h"

#include <stdio.h>

void rp_claims_text_first(FILE *out, const struct rp_data *d)
{
	const struct rp_claims *cs = d->claims;
	char line[1024], first[8];

	if (!cs)
		return;
	fprintf(out, "== the 2023 claims: warm run '%s' (the 2023 method) beside %zu honest run%s ==\n",
		d->runs[0].tag, d->n_runs - 1, d->n_runs == 2 ? "" : "s");
	for (int k = 0; k < RP_N_CLAIMS; k++) {
		snprintf(line, sizeof(line), "%s: %s (%s)", cs->c[k].title, rp_claim_word(cs->c[k].word),
			 cs->c[k].decides);
		snprintf(first, sizeof(first), "(%d) ", k + 1);
		rp_text_wrap_at(out, first, 6, 100, line);
	}
	fputs("(each run's evidence: \"2023 claims\" at the end)\n\n", out);
}

void rp_claims_html_first(FILE *out, const struct rp_data *d)
{
	const struct rp_claims *cs = d->claims;
	char line[1024];

	if (!cs)
		return;
	fputs("<section id=\"claims-first\"><h2>The 2023 claims</h2>\n<ul class=verdicts>\n", out);
	for (int k = 0; k < RP_N_CLAIMS; k++) {
		/* "(1) btrfs is the fastest filesystem for writes: does not hold (...)" */
		snprintf(line, sizeof(line), "(%d) %s: %s (%s)", k + 1, cs->c[k].title,
			 rp_claim_word(cs->c[k].word), cs->c[k].decides);
		fprintf(out, "<li class=\"claim-%s\" data-claim=%d>", rp_claim_class(cs->c[k].word), k + 1);
		rp_html_put(out, "", line, "</li>\n");
	}
	fputs("</ul>\n<p class=legend>Judged on the honest runs with the summary's intervals; each "
	      "run's evidence: <a href=\"#claims-2023\">the 2023 claims</a>.</p></section>\n",
	      out);
}

void rp_claims_text(FILE *out, const struct rp_data *d)
{
	const struct rp_claims *cs = d->claims;

	if (!cs)
		return;
	fprintf(out, "\n== 2023 claims: warm run '%s' (the 2023 method) beside %zu honest run%s ==\n",
		d->runs[0].tag, d->n_runs - 1, d->n_runs == 2 ? "" : "s");
	for (int k = 0; k < RP_N_CLAIMS; k++) {
		const struct rp_claim *c = &cs->c[k];
		char last[640];

		fprintf(out, "(%d) %s\n", k + 1, c->title);
		if (k == 4)
			for (size_t i = 0; i < cs->n_headline; i++)
				rp_text_wrap_at(out, "    ", 6, 100, cs->headline[i]);
		for (size_t i = 0; i < c->n; i++) {
			char first[128];
			snprintf(first, sizeof(first), "    %-8s %-6s %-13s ", c->runs[i].run->tag,
				 i == 0 ? "warm" : "honest", rp_claim_word(c->runs[i].word));
			rp_text_wrap_at(out, first, 20, 100, c->runs[i].evidence);
		}
		snprintf(last, sizeof(last), "%s: %s", rp_claim_word(c->word), c->decides);
		rp_text_wrap_at(out, "    => ", 7, 100, last);
	}
}

void rp_claims_html(FILE *out, const struct rp_data *d)
{
	const struct rp_claims *cs = d->claims;

	if (!cs)
		return;
	fputs("<section id=\"claims-2023\"><h2>The 2023 claims, warm beside honest</h2>\n<p>The warm "
	      "run repeats the 2023 method (buffered I/O, files that fit in RAM); the honest runs drop "
	      "or bypass the page cache. A claim holds when the honest runs that have the data "
	      "decide it, with the summary's simultaneous intervals (the same estimates and family "
	      "as the matrix); two honest runs that decide it differently disagree, and both "
	      "figures are shown.</p>\n<table><tr><th class=l>claim</th><th class=l>run</th><th class=l>kind</th>"
	      "<th class=l>verdict</th><th class=l>evidence</th></tr>\n",
	      out);
	for (int k = 0; k < RP_N_CLAIMS - 1; k++) {
		const struct rp_claim *c = &cs->c[k];

		for (size_t i = 0; i < c->n; i++) {
			const struct rp_claim_run *l = &c->runs[i];
			if (i == 0) {
				fprintf(out, "<tr><td class=l rowspan=%zu>(%d) %s<br><b class=%s>%s</b>: ",
					c->n, k + 1, c->title, rp_claim_class(c->word), rp_claim_word(c->word));
				rp_html_put(out, "", c->decides, "</td>");
			} else {
				fputs("<tr>", out);
			}
			rp_html_put(out, "<td class=l>", l->run->tag, "");
			fprintf(out, "</td><td class=l>%s</td><td class=\"l %s\">%s</td><td class=l>",
				i == 0 ? "warm" : "honest", rp_claim_class(l->word), rp_claim_word(l->word));
			rp_html_put(out, "", l->evidence, "</td></tr>\n");
		}
	}
	fprintf(out, "</table>\n<h3>(5) The 2023 headline against the device</h3>\n<p><b class=%s>%s</b>: ",
		rp_claim_class(cs->c[4].word), rp_claim_word(cs->c[4].word));
	rp_html_escape(out, cs->c[4].decides);
	fputs(". 2023: btrfs wrote at 3.5e+07 KB/s and read at 2.2e+07 KB/s. Compared with what each "
	      "device did in fslab run's O_DIRECT probe:</p><ul>\n",
	      out);
	for (size_t i = 0; i < cs->n_headline; i++)
		rp_html_put(out, "<li>", cs->headline[i], "</li>\n");
	fputs("</ul></section>\n", out);
}
