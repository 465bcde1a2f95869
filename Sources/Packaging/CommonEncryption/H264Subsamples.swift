/// Splits an H.264 sample (length-prefixed NAL units, ISO/IEC 14496-15) into clear and protected runs, as
/// ISO/IEC 23001-7 §10.2 and CMAF §8.2.3.2 ask and shaka-packager does:
/// - a slice NAL unit (types 1 and 5) keeps its length prefix, header byte and slice header clear, and protects the
///   rest — for `cenc` only whole 16-byte blocks of it (the misaligned bytes stay clear, in front);
/// - every other NAL unit (parameter sets, SEI, delimiters) is clear, its bytes added to the next run's clear part;
/// - a clear part longer than 65 535 bytes (`BytesOfClearData` is 16 bits) is split with empty protected parts.
/// Parameter sets found in a sample update the table later slice headers are read with (`avc3` streams carry them
/// in band, in the segment's first sample).
struct H264Subsamples {
    let scheme: EncryptionScheme
    let nalLengthSize: Int
    var parameterSets: H264ParameterSets

    mutating func subsamples(of bytes: [UInt8], range: Range<Int>, location: String) throws(MP4StructureError) -> [Subsample] {
        var runs = SubsampleRuns()
        var at = range.lowerBound
        while at < range.upperBound {
            guard range.upperBound - at >= nalLengthSize else { throw .malformed(location, "a NAL unit length prefix runs past the sample") }
            let length = bytes[at..<at + nalLengthSize].reduce(0) { $0 << 8 | Int($1) }
            let start = at + nalLengthSize
            guard length <= range.upperBound - start else {
                throw .malformed(location, "a NAL unit of \(length) bytes at offset \(at - range.lowerBound) does not fit the sample")
            }
            let nal = start..<start + length
            guard length > 0 else {
                runs.add(clear: nalLengthSize, protected: 0)
                at = start
                continue
            }
            let type = bytes[start] & 0x1F
            if type == 1 || type == 5 {
                var clear = try H264SliceHeader.clearLength(of: bytes, range: nal, parameterSets: parameterSets, location: location)
                var protected = length - clear
                if scheme.alignsProtectedRanges {
                    clear += protected % AESCipher.blockSize
                    protected -= protected % AESCipher.blockSize
                }
                runs.add(clear: nalLengthSize + clear, protected: protected)
            } else {
                try parameterSets.read(nalUnit: bytes, range: nal, location: location)
                runs.add(clear: nalLengthSize + length, protected: 0)
            }
            at = nal.upperBound
        }
        return runs.finished()
    }
}

/// Collects clear and protected byte counts into `senc` subsamples.
struct SubsampleRuns {
    private var subsamples: [Subsample] = []
    private var pendingClear = 0

    mutating func add(clear: Int, protected: Int) {
        pendingClear += clear
        guard protected > 0 else { return }
        flush(protected: protected)
    }

    private mutating func flush(protected: Int) {
        while pendingClear > Int(UInt16.max) {
            subsamples.append(Subsample(clearBytes: .max, protectedBytes: 0))
            pendingClear -= Int(UInt16.max)
        }
        subsamples.append(Subsample(clearBytes: UInt16(pendingClear), protectedBytes: UInt32(protected)))
        pendingClear = 0
    }

    /// The subsamples, a final clear-only one for what is left.
    mutating func finished() -> [Subsample] {
        if pendingClear > 0 || subsamples.isEmpty { flush(protected: 0) }
        return subsamples
    }
}
