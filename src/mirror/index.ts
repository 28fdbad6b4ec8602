// The face of src/mirror/: screen mirroring's codecs as the receiver, the hosts and the sender use
// them (stream packets, avcC, Annex B, the NAL kernel, the stream request;
// its clock synchronisation is src/timing).

export { NAL_TYPE, annexB, decoderInput, groupAccessUnits, lengthPrefixed, nalType, splitNalUnits } from './annexb-stream';
export { AvcCError, buildAvcC, codecString, parameterSetsAnnexB, parseAvcC } from './avcc';
export { NalError, isNalLengthSize, lengthSizeError, nalErrorAt, portableNalKernel, readNalLength } from './nal-kernel';
export type { AnnexBUnit, NalKernel } from './nal-kernel';
export { HEARTBEAT_INTERVAL_MS, PACKET_HEADER_BYTES, PACKET_TYPE, PacketReader, writePacket } from './packet';
export type { PacketHeader } from './packet';
export { MIRROR_PORT, parseStreamRequest, streamCapabilities } from './stream-request';
export type { StreamRequest } from './stream-request';
