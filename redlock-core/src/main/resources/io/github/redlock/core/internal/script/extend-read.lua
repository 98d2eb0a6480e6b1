-- Read lock extension, one node. KEYS[1] readers (sorted set: token -> expiry, server ms).
-- ARGV[1] token, ARGV[2] new ttl ms. While the token's entry is live, makes it live at least ARGV[2] ms more
-- (never less than it had), and keeps the set at least as long-lived.
-- Returns the entry's time to live in ms afterwards (at least 1), or 0 when it had expired or was gone.
if redis.replicate_commands then redis.replicate_commands() end
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry then
    return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
expiry = tonumber(expiry)
if expiry <= now then
    return 0
end
local target = math.max(expiry, now + tonumber(ARGV[2]))
if target > expiry then
    redis.call('zadd', KEYS[1], target, ARGV[1])
end
if redis.call('pttl', KEYS[1]) < target - now then
    redis.call('pexpire', KEYS[1], target - now)
end
return target - now
