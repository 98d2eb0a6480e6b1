-- Read unlock, one node. KEYS[1] readers (sorted set: token -> expiry, server ms); with KEYS[2] (queued
-- readers) and KEYS[3] (queue expiries), also withdraws the token from the queue (a reader that gave up
-- waiting no longer holds writers back). ARGV[1] token; ARGV[2], if given with KEYS[4] (queued writers), a channel
-- to publish on where the reader's entry was removed and a writer is queued, so that waiting writers try again at
-- once (a refused writer queues in the script that refuses it; with none queued, nobody waits for this release).
-- Returns 1 when the reader's entry was still live, 0 when it had expired or was gone.
if redis.replicate_commands then redis.replicate_commands() end
if #KEYS > 1 then
    redis.call('zrem', KEYS[2], ARGV[1])
    redis.call('zrem', KEYS[3], 'r:' .. ARGV[1])
end
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry then
    return 0
end
redis.call('zrem', KEYS[1], ARGV[1])
if ARGV[2] and KEYS[4] and redis.call('zcard', KEYS[4]) > 0 then
    redis.pcall('publish', ARGV[2], ARGV[1]) -- pcall: an ACL may forbid the channel
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if tonumber(expiry) > now then
    return 1
end
return 0
