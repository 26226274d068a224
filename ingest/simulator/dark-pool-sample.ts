import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import type { Instrument } from '../../services/domain/universe';
import { EquityPrintGenerator } from './equity-prints';
import type { SimEvent } from './events';
import type { SimulatedMarket } from './session';

/**
 * The daily tier's sample of off-exchange prints, so that history sessions (which carry no tick
 * tier) have dark-pool levels: the DARK_POOL prints reported in the first minute of every
 * `everyMinutes` minutes of the session (the profile's darkPoolSampleMinutes), exactly as the tick
 * tier reports them (same ids and values), each with the condition HISTORY_SAMPLE_CONDITION added. The
 * condition lets readers tell the sample from the tape: the print tape skips sampled prints, and
 * the dark-pool levels of a session that also has its tick tier use the tape only.
 */

export function darkPoolSample(market: SimulatedMarket, date: string, instruments: readonly Instrument[], everyMinutes: number): SimEvent[] {
  const out: SimEvent[] = [];
  if (everyMinutes <= 0) return out;
  const ctx = market.context(date);
  for (const inst of instruments) {
    if (inst.isIndex) continue;
    const gen = new EquityPrintGenerator(ctx, inst, market.model.sessionPath(inst, date));
    for (let m = 0; m < gen.minutes; m += everyMinutes) {
      for (const e of gen.reportedInMinute(m)) {
        if (e.data.printType !== 'DARK_POOL') continue;
        out.push({ ...e, data: { ...e.data, conditions: [...(e.data.conditions as string[]), HISTORY_SAMPLE_CONDITION] } });
      }
    }
  }
  return out;
}
