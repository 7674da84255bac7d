import { showControls } from '@svc/methodology';
import { bothWaysWords } from '../services/analysis/factor-words.js';
import { nextBandWords } from '../services/analysis/next-band-words.js';
import type { PublishedIndicator } from '../services/scores/scores.js';
import { html, page, type SafeHtml } from './html.js';

/**
 * What the verification page shows: the published indicator as the service reads it (its row's dates and hashes,
 * where it stands now), with the framework's short version ("1.0") when this service knows the framework, for the
 * methodology link.
 */
export interface VerifyView extends Omit<PublishedIndicator, 'frameworkVersion'> {
  siteUrl: string;
  frameworkVersion: string | null;
}

const when = (iso: string) => html`<time datetime="${iso}">${iso}</time>`;
/** A calendar date (the evaluation date is a date, whatever time its timestamp carries). */
const onDay = (iso: string) => html`<time datetime="${iso.slice(0, 10)}">${iso.slice(0, 10)}</time>`;

export function verifyPage(view: VerifyView): string {
  const ri = view.indicator;
  // A name stored before free text refused control characters is shown with them made visible.
  const name = showControls(ri.name);
  const id = ri.risk_indicator_id;
  // The framework's canonical bytes are public: no key is needed to check framework_sha256.
  const frameworkPath = `/api/public/frameworks${view.frameworkVersion ? `/${view.frameworkVersion}` : ''}`;
  const standing =
    view.standing.kind === 'current'
      ? html`<p class="note current"><strong>Current.</strong> This is the Risk Indicator in force for ${name}.</p>`
      : view.standing.kind === 'superseded'
        ? html`<p class="note superseded"><strong>Superseded.</strong> This Risk Indicator was published and is
kept for verification, but a later one has replaced it for ${name}${
            view.standing.currentId
              ? html`: <a href="/verify/${view.standing.currentId}"><code>${view.standing.currentId}</code></a>`
              : ''
          }.</p>`
        : html`<p class="note withdrawn"><strong>Withdrawn.</strong> Coverage of ${name} was withdrawn on
${when(view.standing.withdrawnAt)}; this Risk Indicator is kept for verification but is no longer in force.</p>`;
  const nextBand = nextBandWords(ri.final_score, ri.svc_decision_object, view.pathToNextBand);
  const bothWays = bothWaysWords(ri.svc_decision_object);
  const modules = ri.score_commentary.modules.map(
    (m) => html`<tr><td>${m.module_id}</td><td>${m.label}</td><td>${m.score.toFixed(2)} of ${m.max}</td></tr>`,
  );
  const body = html`<h1>Risk Indicator <code>${id}</code></h1>
<p class="muted">Verification page of a published Risk Indicator.</p>
<div class="headline">
<div><div class="muted">Provider</div><div><strong>${name}</strong></div></div>
<div><div class="muted">Final score</div><div class="score">${ri.final_score.toFixed(2)}</div></div>
<div><div class="muted">Band</div><div><span class="band band-${ri.risk_band}">${ri.risk_band}</span></div></div>
</div>
${standing}
<dl class="facts">
<dt>Provider</dt><dd>${name} <span class="muted">(${ri.planner_type}, ${ri.provider_subtype}; id <code>${ri.provider_id}</code>)</span></dd>
<dt>Final score</dt><dd>${ri.final_score.toFixed(2)} <span class="muted">of 100; higher means lower risk</span></dd>
<dt>Band</dt><dd>${ri.risk_band}</dd>
<dt>Confidence</dt><dd>${ri.confidence.toFixed(4)}</dd>
<dt>Framework</dt><dd>${ri.framework_version}</dd>
<dt>Scored (evaluation date)</dt><dd>${onDay(ri.scored_at)}</dd>
<dt>Inputs approved</dt><dd>${when(view.scoreVerifiedAt)} <span class="muted">(score_verified_at)</span></dd>
<dt>Published</dt><dd>${when(view.publishedAt)}</dd>
</dl>
<p>${showControls(ri.svc_decision_object.summary)}</p>
${bothWays === null ? '' : html`<p class="both-ways">${showControls(bothWays)}</p>\n`}${nextBand === null ? '' : html`<p class="next-band">${nextBand}</p>\n`}<h2>Modules</h2>
<table><thead><tr><th>Module</th><th>Label</th><th>Score</th></tr></thead><tbody>
${modules}</tbody></table>
<h2>Package hashes</h2>
<dl class="facts">
<dt>inputs_sha256</dt><dd class="hash">${view.inputsSha256}</dd>
<dt>framework_sha256</dt><dd class="hash">${view.frameworkSha256}</dd>
<dt>result_sha256</dt><dd class="hash">${view.resultSha256}</dd>
</dl>
${signedSection(view)}
<h2>Reproduce it</h2>
<ol>
<li>Fetch the computation package with an Enterprise API key and save it exactly as received:
<pre><code>curl -sS -H 'x-api-key: YOUR_ENTERPRISE_KEY' \\
  -o package.json ${view.siteUrl}/api/v1/computation/${id}</code></pre></li>
<li>Recompute it from its own inputs and framework with the <code>svc</code> command:
<pre><code>svc verify package.json</code></pre>
It prints <code>reproduced: ${id} (${ri.framework_version}), result sha256 …</code> and exits 0 when every step
reproduces; otherwise it names the first step that differs.</li>
<li>Check the hashes: <code>inputs_sha256</code>, <code>framework.sha256</code> and <code>result_sha256</code> in the
package must equal the three above. ${
    view.frameworkVersion
      ? html`The framework is public (no key): its canonical bytes, saved as received, hash to
<code>framework_sha256</code>:
<pre><code>curl -sS -o framework.json ${view.siteUrl}${frameworkPath}
sha256sum framework.json</code></pre>`
      : html`The released frameworks are public (no key): <code>GET ${view.siteUrl}${frameworkPath}</code> lists each
with its <code>framework_sha256</code>.`
  }
The identifier itself is content-addressed: <code>ri_</code> followed by the first 24 hex digits of the SHA-256 of
the canonical <code>{framework_sha256, inputs_sha256, evaluation_date}</code>.</li>
</ol>
<p class="muted">The rules are the published methodology, ${ri.framework_version}, served as data by
<code>GET ${frameworkPath}</code> (public); the endpoints are described in the <a href="/docs">API reference</a>.</p>
`;
  return page({ title: `Risk Indicator ${id}: ${name}` }, body);
}

/** The publication's signed statement: whether its signature verifies here, and how to check it without us. */
function signedSection(view: VerifyView): SafeHtml {
  const id = view.indicator.risk_indicator_id;
  const checked = view.statement;
  if (!checked) {
    return html`<h2>Signed statement</h2>
<p class="note">This publication predates signed statements and has not been signed yet; it will be when the service
next starts.</p>
`;
  }
  const { signed, verifies, keyStatus } = checked;
  const verdict = verifies
    ? html`<p class="note current"><strong>Signature verifies.</strong> The statement of this publication is signed with
Ed25519 key <code>${signed.kid}</code> (${keyStatus}), and its signature matches its bytes.</p>`
    : html`<p class="note error"><strong>Signature does not verify.</strong> The statement stored for this publication
does not match its signature under key <code>${signed.kid}</code> (${keyStatus}). Do not rely on it; contact us.</p>`;
  const packageHash =
    signed.statement.type === 'publication'
      ? html`<dt>package_sha256</dt><dd class="hash">${signed.statement.package_sha256}</dd>`
      : '';
  return html`<h2>Signed statement</h2>
${verdict}
<dl class="facts">
<dt>Key (kid)</dt><dd><code>${signed.kid}</code> <span class="muted">(EdDSA, Ed25519)</span></dd>
<dt>Signed</dt><dd>${when(signed.statement.signed_at)}</dd>
<dt>statement_sha256</dt><dd class="hash">${signed.statement_sha256}</dd>
${packageHash}
<dt>Audit trail head</dt><dd>entry ${String(signed.statement.audit_head.seq)}, <span class="hash">${signed.statement.audit_head.hash}</span></dd>
</dl>
<p>Check it yourself, with <code>curl</code>, <code>python3</code> and <code>openssl</code> (nothing of ours):</p>
<pre><code>curl -sS -o signed.json ${view.siteUrl}/api/public/publications/${id}
curl -sS -o keys.json ${view.siteUrl}/.well-known/svc-signing-keys.json
python3 - &lt;&lt;'END'
import base64, json
s = json.load(open("signed.json")); keys = json.load(open("keys.json"))["keys"]
key = next(k for k in keys if k["kid"] == s["kid"])
b64 = lambda t: base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))
# the statement's RFC 8785 bytes (sorted keys, no spaces: exact for these statements)
open("statement.bin", "wb").write(json.dumps(s["statement"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
open("signature.bin", "wb").write(b64(s["signature"]))
open("key.der", "wb").write(bytes.fromhex("302a300506032b6570032100") + b64(key["x"]))
END
openssl pkeyutl -verify -pubin -keyform DER -inkey key.der -rawin -in statement.bin -sigfile signature.bin</code></pre>
<p><code>Signature Verified Successfully</code> means the statement is ours and unchanged. Its <code>package_sha256</code>
is the SHA-256 of the computation package's bytes (step 1 below): <code>sha256sum package.json</code> must print it.
Or, with the <code>svc</code> command: <code>svc verify package.json --statement
${view.siteUrl}/api/public/publications/${id} --keys ${view.siteUrl}/.well-known/svc-signing-keys.json</code>.</p>
`;
}

/** The answer for an identifier that is malformed or not published: says so, echoing the (escaped) text. */
export function notPublishedPage(id: string): string {
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  const body = html`<h1>Not a published Risk Indicator</h1>
<p class="note error"><code>${shown}</code> is not a published Risk Indicator.</p>
<p>A verification identifier is <code>ri_</code> followed by 24 lower-case hex digits, as printed on a published Risk
Indicator (<code>risk_indicator_id</code>). Check the address, or find the provider's current indicator through the
<a href="/docs">API</a>.</p>
`;
  return page({ title: 'Not a published Risk Indicator' }, body);
}

/** The answer when the store cannot be read: try again shortly. */
export function unavailablePage(): string {
  const body = html`<h1>Temporarily unavailable</h1>
<p class="note error">The record cannot be read right now. Please try again in a few seconds.</p>
`;
  return page({ title: 'Temporarily unavailable' }, body);
}
