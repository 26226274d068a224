import type { ConsolidatedTradeEvent, EnrichedPrintEvent, OptionPrint } from '../../services/domain/order-flow';
import { dividendYield } from '../../services/domain/rates';
import { enrichPrint, sessionDateAt } from '../enrich/enrich-print';
import { Consolidator } from './consolidate';

/** What the order-flow rows take from reference.instruments. */
export interface ReferenceData {
  sector: string;
  industry: string;
  isETF: boolean;
  isIndex: boolean;
}

/** Used (with a warning) for a ticker reference.instruments does not know. */
export const UNKNOWN_REFERENCE: ReferenceData = Object.freeze({ sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: false, isIndex: false });

export interface DerivedPair {
  enriched: EnrichedPrintEvent;
  consolidated: ConsolidatedTradeEvent;
  /** `consolidated` Avro-encoded (consolidated-trade schema, no wire header); valid until the next apply */
  consolidatedBody: Buffer;
}

/** What changed since the last takeTouched(): the entries a persister writes. */
export interface TouchedState {
  volumes: [string, number][];
  /** open trades' latest versions, Avro-encoded */
  groups: [string, Buffer][];
}

/** Key of a contract's cumulative volume in a session. */
export function volumeKeyOf(sessionDate: string, osi: string): string {
  return `${sessionDate}|${osi}`;
}

/**
 * The order-flow computation of ONE partition of market.option-prints, as a pure fold: feed it
 * the partition's prints in offset order and it returns, for each, the enriched print and the
 * new version of its consolidated trade. Its state — the cumulative volume per (session, osi) and
 * the open trade per consolidation key — is explicit, so the processor can persist what changed
 * after each Kafka commit and restore it after a restart, and a test can recompute the expected
 * topics from the same source messages.
 */
export class OrderFlowPartition {
  readonly volumes: Map<string, number>;
  readonly consolidator: Consolidator;
  /** volume entries changed since the last takeTouched(), with their latest value */
  private readonly touchedVolumes = new Map<string, number>();

  constructor(
    readonly partition: number,
    /** risk-free rate for implied volatility and greeks (MDQ_RISK_FREE_RATE) */
    private readonly rate: number,
    state?: { volumes?: Map<string, number>; consolidator?: Consolidator },
  ) {
    this.volumes = state?.volumes ?? new Map();
    this.consolidator = state?.consolidator ?? new Consolidator();
  }

  /** The next print of the partition (offsets strictly increasing). */
  apply(print: OptionPrint, offset: number, ref: ReferenceData): DerivedPair {
    const vKey = volumeKeyOf(sessionDateAt(print.time), print.osi);
    const volumeBefore = this.volumes.get(vKey) ?? 0;
    const enriched = enrichPrint(
      print,
      { partition: this.partition, offset },
      {
        volumeBefore,
        sector: ref.sector,
        industry: ref.industry,
        isETF: ref.isETF,
        isIndex: ref.isIndex,
        rate: this.rate,
        dividend: dividendYield(print.ticker),
      },
    );
    this.volumes.set(vKey, enriched.volume);
    this.touchedVolumes.set(vKey, enriched.volume);
    const { trade, body } = this.consolidator.addEncoded(enriched);
    return { enriched, consolidated: trade, consolidatedBody: body };
  }

  /** Entries changed since the last call (each once, with its latest value); forgets them. */
  takeTouched(): TouchedState {
    const volumes = [...this.touchedVolumes];
    this.touchedVolumes.clear();
    return { volumes, groups: this.consolidator.takeTouchedEncoded() };
  }
}
