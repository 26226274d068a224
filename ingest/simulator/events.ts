import type { EventType } from '../../schemas/catalog';
import type { LocalDate } from '../../services/domain/calendar';
import type { MarketModel } from './market';
import type { Profile } from './profiles';

/** One generated event: its catalog type, the time that orders it in the stream, and its data. */
export interface SimEvent {
  type: EventType;
  /** epoch-ms at which the event is published (orders the stream; e.g. reportTime of a delayed print) */
  time: number;
  data: Record<string, unknown>;
}

/** What every generator of one session needs. */
export interface SessionContext {
  seed: number;
  date: LocalDate;
  profile: Profile;
  model: MarketModel;
}

/** yyyymmdd, used inside deterministic ids. */
export function compactDate(d: LocalDate): string {
  return d.replace(/-/g, '');
}
