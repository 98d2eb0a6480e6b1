-- Read unlock, one node. KEYS[1] readers (sorted set: token -> expiry, server ms). ARGV[1] token.
-- Removes the token. Returns 1 when it was still live, 0 when it had expired or was gone.
if redis.replicate_commands then redis.replicate_commands() end
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry then
    return 0
end
redis.call('zrem', KEYS[1], ARGV[1])
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if tonumber(expiry) > now then
    return 1
end
return 0
