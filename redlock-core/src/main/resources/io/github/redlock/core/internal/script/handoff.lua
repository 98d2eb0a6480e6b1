-- Hands an exclusive lock from a holder to the next holder of the same client in one step, on one node, unless
-- another client waits for it here. KEYS[1] the lock's key, KEYS[2] the hash of who waits for it (client id -> until
-- when, this server's ms; written by cleanup.lua where an attempt was refused). ARGV[1] the releasing holder's
-- token, ARGV[2] the next holder's token, ARGV[3] the next holder's ttl ms, ARGV[4] the lock's release channel,
-- ARGV[5] the releasing client's id.
-- While the key holds ARGV[1]: when no other client waits for this lock, sets the key to ARGV[2] with that ttl
-- (the key is never free in between, so no other client can take it) and returns 1; when another client waits
-- (refused within the time it said it would wait, or within a ttl for a caller that does not wait), releases as
-- release.lua does (deletes the key, publishes ARGV[1]) and returns 2, so that handoffs within one client never
-- starve the others. Returns 0 when the key is gone or held by someone else. Drops the records that ran out.
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
local others = 0
local entries = redis.call('hgetall', KEYS[2])
if #entries > 0 then
    local time = redis.call('time')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    for i = 1, #entries, 2 do
        if tonumber(entries[i + 1]) <= now then
            redis.call('hdel', KEYS[2], entries[i])
        elseif entries[i] ~= ARGV[5] then
            others = others + 1
        end
    end
end
if others > 0 then
    redis.call('del', KEYS[1])
    redis.pcall('publish', ARGV[4], ARGV[1])
    return 2
end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
