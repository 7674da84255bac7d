import {
  type Actor,
  approveRatingActions,
  type Clock,
  frameworkInForce,
  importIssuances,
  type PublishOutcome,
  proposeOutlook,
  proposeWatch,
  providerStanding,
  publishIndicator,
  ratingActionsPage,
  type ServiceContext,
  withdrawProvider,
} from '@svc/api';
import { checkInputs, type Framework, type InputsDocument, type RiskIndicator, score } from '@svc/methodology';
import { DEMO_ANALYST, DEMO_APPROVER, DEMO_RATING_ACTIONS, DEMO_ROUNDS } from './documents.js';
import { DEMO_ISSUANCES } from './issuances.js';

type ChangeType = 'NEW' | 'SCORE_CHANGE' | 'BAND_CHANGE';

/** A demo provider as the seed left it: its current (last) indicator. */
export interface SeededProvider {
  provider_id: string;
  name: string;
  planner_type: string;
  provider_subtype: string;
  final_score: number;
  risk_band: string;
  hard_caps_fired: string[];
  risk_indicator_id: string;
  /** Indicators published for it by this run (0 when it was already in place). */
  published: number;
}

export interface SeedReport {
  framework_version: string;
  providers: SeededProvider[];
  /** Indicators published by this run. */
  published: number;
  /** Change-feed entries written by this run, by type. */
  changes: Record<ChangeType, number>;
  issuances: { inserted: number; updated: number; unchanged: number };
  /** The risk team's acts this run performed: analyst actions approved, withdrawals. */
  rating_actions: { approved: number; withdrawn: number };
  /** Whether this run wrote anything; a second seed reports false. */
  changed: boolean;
}

/** One provider's documents in publication order, each with the indicator it scores to. */
interface Sequence {
  documents: InputsDocument[];
  indicators: RiskIndicator[];
}

/** One publication of the plan: a document, its place in its provider's sequence, and when and under what. */
interface Planned {
  round: number;
  document: InputsDocument;
  position: number;
  publishedAt: string;
  framework: Framework;
}

/** Who the demo's own rows name as publishing it: the seed itself (its personas act for the rating actions). */
const DEMO_SEED: Actor = { kind: 'system', name: 'demo seed' };

/**
 * Loads the demo data set, run by whoever `ctx` acts for (`svc db seed --demo`: the operator of the token, or the
 * name given with --by in open mode): publishes every provider's documents round by round (so the change feed and
 * the history hold both rounds), each under the framework in force on the day it is published (frameworkInForce),
 * and upserts the issuances. Idempotent: a provider whose current indicator is already one of its demo indicators
 * continues after it, so a second run writes nothing. Publication times are fixed per round unless a clock is
 * given; each publication's statement is signed with the context's signer. The audit trail records the context's
 * actor (an operator in open mode without a name: the system's "demo seed") at the context's time, not the demo's
 * personas and fictional dates, which its rows keep.
 */
export async function seedDemo(operator: ServiceContext, options: { clock?: Clock } = {}): Promise<SeedReport> {
  const { clock } = options;
  const ctx: ServiceContext = {
    ...operator,
    ...(clock ? { clock } : {}),
    actor: DEMO_SEED,
    // The demo's personas and dates stay in its rows; the audit trail records who loaded it, and when.
    recording: operator.recording ?? { actor: recorderOf(operator.actor), clock: operator.clock },
  };
  const { sequences, plan } = await planOf(ctx, clock);

  const resume = new Map<string, number>();
  for (const [id, sequence] of sequences) resume.set(id, await resumeAt(ctx, id, sequence));
  const changes: Record<ChangeType, number> = { NEW: 0, SCORE_CHANGE: 0, BAND_CHANGE: 0 };
  const publishedFor = new Map<string, number>();
  const acts = { approved: 0, withdrawn: 0 };
  let acted = false;
  for (const { round, document, position, publishedAt, framework } of plan) {
    // Between the second and the third round: the risk team's outlook, watch and withdrawal.
    if (round >= 2 && !acted) {
      acted = true;
      await riskTeamActs(ctx, sequences, clock, acts);
    }
    const id = document.provider.id;
    if (position < (resume.get(id) ?? 0)) continue;
    const outcome = await publishIndicator(
      { ...ctx, clock: clock ?? fixedClock(publishedAt) },
      {
        document,
        framework,
        approvedAt: latestApproval(document),
      },
    );
    if (outcome.status === 'refused') throw new Error(`demo document for ${document.provider.name}: ${outcome.reason}`);
    if (outcome.status === 'published') {
      publishedFor.set(id, (publishedFor.get(id) ?? 0) + 1);
      const change = changeOf(outcome);
      if (change) changes[change] += 1;
    }
  }

  if (!acted) await riskTeamActs(ctx, sequences, clock, acts);
  const issuances = await importIssuances(ctx, { issuances: DEMO_ISSUANCES });

  const providers = [...sequences].map(([id, s]) => seeded(s, publishedFor.get(id) ?? 0));
  const published = providers.reduce((sum, p) => sum + p.published, 0);
  return {
    // The framework of the last round: the one the providers' indicators in force were computed under.
    framework_version: plan.at(-1)?.framework.definition.framework_version ?? '',
    providers,
    published,
    changes,
    issuances,
    rating_actions: acts,
    changed:
      published > 0 || issuances.inserted > 0 || issuances.updated > 0 || acts.approved > 0 || acts.withdrawn > 0,
  };
}

/** Who the trail names for the operator running the seed: in open mode without a name, the seed itself. */
function recorderOf(actor: Actor): Actor {
  return actor.kind === 'operator' && actor.id === null && actor.name === null ? DEMO_SEED : actor;
}

/**
 * Every provider's documents in publication order, each checked and scored under the framework in force on the day
 * its round is published (by `clock` when one is given): the plan, and each provider's sequence of indicators.
 */
async function planOf(
  ctx: ServiceContext,
  clock: Clock | undefined,
): Promise<{ sequences: Map<string, Sequence>; plan: Planned[] }> {
  const sequences = new Map<string, Sequence>();
  const plan: Planned[] = [];
  for (const [index, round] of DEMO_ROUNDS.entries()) {
    const on = (clock ?? fixedClock(round.published_at)).now().toISOString().slice(0, 10);
    const framework = await frameworkInForce(ctx, { on });
    for (const raw of round.documents) {
      const document = checkInputs(raw, framework);
      const sequence = sequences.get(document.provider.id) ?? { documents: [], indicators: [] };
      const publishedAt = round.published_at;
      plan.push({ round: index, document, position: sequence.documents.length, publishedAt, framework });
      sequence.documents.push(document);
      sequence.indicators.push(score(document, framework));
      sequences.set(document.provider.id, sequence);
    }
  }
  return { sequences, plan };
}

/**
 * The demo's rating actions by the risk team, through the real verbs: an outlook and a watch, each proposed by the
 * demo analyst and approved by the demo approver (two people), and a withdrawal (reinstated by the next round).
 * Each is done once: skipped when the provider already has such an action on record (or, for the withdrawal, no
 * longer has the indicator it is withdrawn from), so a second seed writes nothing.
 */
async function riskTeamActs(
  ctx: ServiceContext,
  sequences: ReadonlyMap<string, Sequence>,
  clock: Clock | undefined,
  acts: { approved: number; withdrawn: number },
): Promise<void> {
  const as = (name: string, at: string): ServiceContext => ({
    ...ctx,
    actor: { kind: 'system', name },
    clock: clock ?? fixedClock(at),
  });
  const { outlook, watch, withdrawal } = DEMO_RATING_ACTIONS;
  if (!(await hasAction(ctx, outlook.provider_id, 'OUTLOOK_CHANGED'))) {
    const proposal = await proposeOutlook(as(DEMO_ANALYST, outlook.proposed_at), {
      providerId: outlook.provider_id,
      outlook: outlook.outlook,
      rationale: outlook.rationale,
    });
    acts.approved += (
      await approveRatingActions(as(DEMO_APPROVER, outlook.approved_at), { ids: [proposal.id] })
    ).length;
  }
  if (!(await hasAction(ctx, watch.provider_id, 'WATCH_PLACED'))) {
    const proposal = await proposeWatch(as(DEMO_ANALYST, watch.proposed_at), {
      providerId: watch.provider_id,
      direction: watch.direction,
      rationale: watch.rationale,
    });
    acts.approved += (await approveRatingActions(as(DEMO_APPROVER, watch.approved_at), { ids: [proposal.id] })).length;
  }
  const standing = await providerStanding(ctx, { providerId: withdrawal.provider_id });
  const first = sequences.get(withdrawal.provider_id)?.indicators[0];
  if (standing && standing.withdrawn_at === null && standing.current_indicator_id === first?.risk_indicator_id) {
    await withdrawProvider(as(DEMO_APPROVER, withdrawal.at), {
      providerId: withdrawal.provider_id,
      reason: withdrawal.reason,
    });
    acts.withdrawn += 1;
  }
}

/** Whether the provider has an effective action of this type on record. */
async function hasAction(ctx: ServiceContext, providerId: string, type: string): Promise<boolean> {
  const page = await ratingActionsPage(ctx, { provider_id: providerId, type, limit: 1 });
  return page.data.length > 0;
}

/**
 * Where a provider's publications start: after its current indicator when that
 * is one of its demo indicators; only the last document when it holds other
 * data or was withdrawn (the demo state is restored without replaying history);
 * the first document when it is new.
 */
async function resumeAt(ctx: ServiceContext, providerId: string, sequence: Sequence): Promise<number> {
  const provider = await providerStanding(ctx, { providerId });
  if (!provider) return 0;
  const last = sequence.documents.length - 1;
  if (provider.withdrawn_at !== null) return last;
  const at = sequence.indicators.findIndex((i) => i.risk_indicator_id === provider.current_indicator_id);
  return at === -1 ? last : at + 1;
}

function changeOf(outcome: Extract<PublishOutcome, { status: 'published' }>): ChangeType | null {
  return outcome.change === 'WITHDRAWN' ? null : outcome.change;
}

/** When the inputs were approved: the latest approval among them. */
function latestApproval(document: InputsDocument): string {
  const times = Object.values(document.inputs).map((item) => Date.parse(item.approved_at));
  return new Date(Math.max(...times)).toISOString();
}

function fixedClock(iso: string): Clock {
  const at = new Date(iso);
  return { now: () => new Date(at) };
}

function seeded(sequence: Sequence, published: number): SeededProvider {
  const indicator = sequence.indicators[sequence.indicators.length - 1] as RiskIndicator;
  const provider = (sequence.documents[0] as InputsDocument).provider;
  return {
    provider_id: provider.id,
    name: provider.name,
    planner_type: provider.planner_type,
    provider_subtype: provider.provider_subtype,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band,
    hard_caps_fired: indicator.svc_decision_object.hard_caps_fired.map((c) => c.cap_id),
    risk_indicator_id: indicator.risk_indicator_id,
    published,
  };
}
