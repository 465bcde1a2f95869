import Animation
import Overlay

/// A layer whose mark follows a different path for different rows: a `random` animation whose
/// seed differs between rows (the default seed is the layer's rendered text, so an e-mail in
/// the text makes every student's path their own).
public struct TracedLayer: Sendable, Equatable {
    /// The layer's identity across rows: its config path (rows may leave layers out with
    /// `unless`, so positions in the list do not line up).
    public var key: String
    public var durationMilliseconds: Int64
    public var easeMilliseconds: Int64
    /// Which slot schedule the layer's slots belong to (layers with one timing share one).
    public var schedule: Int
}

/// A traced animation's timing: the slots during which marks stay put.
public struct SlotSchedule: Sendable, Equatable {
    public var durationSeconds: Double
    public var easeSeconds: Double

    /// Seconds left out at both ends of each slot: the leak's timing is known to a frame or two,
    /// and a frame near a jump may show either spot.
    public var guardSeconds: Double { min(0.25, durationSeconds / 4) }

    /// The slot whose steady part holds original time `seconds`, or nil near a jump or while the mark eases.
    public func slot(at seconds: Double) -> Int64? {
        guard seconds >= 0 else { return nil }
        let slot = (seconds / durationSeconds).rounded(.down)
        let into = seconds - slot * durationSeconds
        guard into >= easeSeconds + guardSeconds, durationSeconds - into >= guardSeconds else { return nil }
        return Int64(slot)
    }

    /// A time in the steady part of `slot`, where every row's mark is at its spot for the slot.
    public func steadyTime(of slot: Int64) -> PresentationTime {
        let milliseconds = (Double(slot) * durationSeconds + (easeSeconds + durationSeconds) / 2) * 1000
        return PresentationTime(milliseconds: Int64(milliseconds.rounded()))
    }
}

public enum TracedLayers {
    /// The traced layers of a job whose rows have these layer lists (one list per row, as the
    /// rows' variables fill them in), in first-row order, and the slot schedules they use.
    /// Empty when every row gets the same path: nothing to trace.
    public static func find(in rows: [[LayerSpec]]) -> (layers: [TracedLayer], schedules: [SlotSchedule]) {
        var seeds: [String: Set<UInt64>] = [:]
        var timing: [String: (Int64, Int64)] = [:]
        var order: [String] = []
        for layers in rows {
            for (index, spec) in layers.enumerated() {
                guard case .random(let duration, let seed, let ease) = spec.timeline.motion else { continue }
                let key = Self.key(of: spec, index: index)
                if timing[key] == nil { order.append(key); timing[key] = (duration, ease) }
                seeds[key, default: []].insert(seed)
            }
        }
        var schedules: [SlotSchedule] = []
        var traced: [TracedLayer] = []
        for key in order {
            // Every key in `order` got its timing and seeds above.
            guard let (duration, ease) = timing[key], (seeds[key]?.count ?? 0) > 1 else { continue }
            let schedule = SlotSchedule(durationSeconds: Double(duration) / 1000, easeSeconds: Double(ease) / 1000)
            let index = schedules.firstIndex(of: schedule) ?? { schedules.append(schedule); return schedules.count - 1 }()
            traced.append(TracedLayer(key: key, durationMilliseconds: duration, easeMilliseconds: ease, schedule: index))
        }
        return (traced, schedules)
    }

    /// How a layer is recognised across rows: its config path, else its position.
    public static func key(of spec: LayerSpec, index: Int) -> String {
        spec.origin?.path ?? "layer \(index + 1)"
    }

    /// Where one row's traced marks were, slot by slot, for the slots in `slots`.
    ///
    /// `layers` are the row's layer specs and `footprints` their footprints on the original
    /// (`Compositor.footprints`, same order); a traced layer the row leaves out contributes
    /// nothing, nor does a slot in which the layer is hidden.
    public static func marks(of layers: [LayerSpec], footprints: [MarkFootprint], traced: [TracedLayer],
                             schedules: [SlotSchedule], slots: [SlotKey]) -> RowMarks {
        var rowFootprints: [MarkFootprint] = []
        var evidence: [MarkEvidence] = []
        for tracedLayer in traced {
            guard let index = layers.indices.first(where: { Self.key(of: layers[$0], index: $0) == tracedLayer.key }),
                  !footprints[index].isEmpty else { continue }
            let footprint = footprints[index]
            rowFootprints.append(footprint)
            for slot in slots where slot.schedule == tracedLayer.schedule {
                let state = layers[index].timeline.state(at: schedules[slot.schedule].steadyTime(of: slot.slot))
                guard state.isVisible else { continue }
                let r = footprint.displayRect(xPercent: state.xPercent, yPercent: state.yPercent)
                evidence.append(MarkEvidence(slot: slot, footprint: rowFootprints.count - 1,
                                             rect: PlaneRect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))))
            }
        }
        return RowMarks(footprints: rowFootprints, evidence: evidence)
    }
}
