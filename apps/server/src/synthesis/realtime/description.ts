/** The realtime routes' descriptions in the API reference: the protocol, and what `multi-stream-input` adds. */
import { MAX_CONTEXTS, MIN_PIECE_CHARACTERS } from './protocol.js';

export const PROTOCOL = `
Upgrade this GET to a WebSocket (\`ws://\` or \`wss://\`). ElevenLabs' realtime protocol, so its clients work with
only their base URL and key changed. Authentication: a Polyvox key in the \`xi-api-key\` header (or the
\`xi_api_key\` query parameter, for browsers), or a session (\`x-sid\` header or the console's cookie): a refused key,
rate or concurrency slot is answered before the upgrade, as for any request. Without either, the first message must
carry the key (\`xi_api_key\`, or \`authorization\` as \`Bearer pvx_…\`), as ElevenLabs' older clients send it; a first
message without one is answered \`UNAUTHENTICATED\` and the socket closed. The socket counts as one request in flight
for the key's concurrency for as long as it is open.

History: each context that delivered audio (the one of \`stream-input\`, each of \`multi-stream-input\`) is an item of
\`GET /v1/history\` once it ends: the text its audio messages spoke, the credits they were charged, and the audio exactly
as its messages carried it (\`GET /v1/history/{id}/audio\`). Text never spoken leaves nothing.

Query: \`output_format\` (any of ElevenLabs' formats, default \`mp3_44100_128\`), \`language_code\`,
\`inactivity_timeout\` (seconds, 1 to 180, default 20: no message for that long while nothing is being spoken closes
the socket; on \`multi-stream-input\`, each context alone), \`auto_mode\` (\`true\`: speak each sentence as soon as it ends instead of following the schedule),
\`sync_alignment\` (\`true\`: every audio message carries the alignment of exactly its own audio; default
\`false\`: the same messages carry \`"alignment": null\`). \`model_id\`,
\`enable_logging\`, \`enable_ssml_parsing\`, \`apply_text_normalization\` and others are accepted and ignored.

Client messages (JSON text frames):
- \`{"text": " ", "voice_settings": {"speed": 1.0}, "generation_config": {"chunk_length_schedule": [120, 160, 250, 290]}}\`:
  the opening message. Its text is a single space; anything else first is refused. \`speed\` is 0.5 to 2;
  \`stability\` (default 0.5) sets the pitch range (wider below, steadier above), \`style\` (default 0) widens it,
  \`use_speaker_boost: false\` makes the tone a little duller, \`similarity_boost\` is accepted without effect; at
  ElevenLabs' defaults the voice is as it is. A later message's settings apply to the pieces after it.
- \`{"text": "Hello world. "}\`: text as it is produced. Once as many characters wait as the schedule's next step
  (each step 50 to 500; after the last, the last repeats), the words that wait are spoken.
- \`{"text": "…", "flush": true}\` or \`{"flush": true}\`: speak everything that waits now.
- \`{"text": "…", "try_trigger_generation": true}\`: speak the whole words that wait if there are 50 characters or more.
- \`{"text": ""}\` (\`stream-input\`): the end. What waits is spoken, \`{"isFinal": true}\` is sent, the socket closes (1000).

Server messages: \`{"audio": "<base64>", "isFinal": false, "normalizedAlignment": {...}, "alignment": {...}, "characters": 12}\`
(\`characters\`: the characters of the text its audio speaks, what it is paid for), each
alignment (with \`sync_alignment=true\`) \`{"chars": [...], "charStartTimesMs": [...], "charDurationsMs": [...]}\` (also spelled
\`charsStartTimesMs\`, \`charsDurationsMs\`, \`char_start_times_ms\` and \`chars_durations_ms\`), times in milliseconds from the start of that message's audio; then
\`{"isFinal": true}\` (also \`is_final\`). With \`wav_*\` the stream's audio is one WAV file: its header (sizes unknown, the label
inside) leads the first audio message only, later messages are samples. Errors: \`{"error": "<CODE>", "message": "…", "code": <HTTP status>}\` with the
contract's codes, the message in the request's language (\`lang\`, \`Accept-Language\`), then a close: 1008 for bad
input (malformed JSON, text before the opening message, an unknown voice, an exhausted balance, inactivity), 1009 for
a message over 64 KiB, 1011 for a failure of ours. A client that does not read what it is sent (more than
\`REALTIME_MAX_UNSENT_BYTES\` waiting, or a message unwritten for \`REALTIME_SEND_TIMEOUT_SECONDS\`) is closed (1008,
\`VALIDATION_FAILED\` naming \`socket\` in the reason), its holds released and its key's slot freed.

Billing: each piece is priced and held as it is cut from the text, at its characters and at least ${MIN_PIECE_CHARACTERS}
(the minimum piece: a one-character flush costs ${MIN_PIECE_CHARACTERS}). It is charged the \`characters\` of its audio
messages written to the socket (at least the minimum once any was), the rest released: a socket that drops half way
through a piece pays for what it was sent. Text still waiting when the socket ends is never held or charged.
`;

export const MULTI = `
\`multi-stream-input\`: up to ${MAX_CONTEXTS} contexts on one socket. Every message names its \`context_id\` (absent:
\`default\`); a context opens with \`{"text": " ", "context_id": "a", "voice_settings": {...}}\`, and every reply carries
\`contextId\` (and \`context_id\`). \`{"context_id": "a", "flush": true}\` speaks what waits, then sends
\`{"type": "flush_done", "flush_done": true, "contextId": "a"}\` once its audio is out. \`{"context_id": "a", "text": ""}\`
keeps a context alive: one without a message for \`inactivity_timeout\` while nothing of it is spoken ends alone (its error
with its \`contextId\`; unflushed text dropped, not charged); the socket closes once no context is left and it idles.
\`{"context_id": "a", "close_context": true}\` drops what waits unflushed (not charged),
finishes the pieces already cut and sends \`{"isFinal": true, "contextId": "a"}\`; its slot is free at once, and its id may
open again (a new context, its audio after the old one's). A message for a context not open (other than its opening
one) is answered with an error. \`{"close_socket": true}\` closes
every context so and then the socket (1000). An error in one context (text before its opening message …) is sent
with its \`contextId\` and ends only that context; an exhausted balance ends the socket.
`;
