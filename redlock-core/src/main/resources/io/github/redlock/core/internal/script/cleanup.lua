-- The clean-up after a failed attempt at an exclusive lock or a lock on several keys, one node. KEYS: the lock's n
-- keys, then the n hashes of who waits for each ("<key>" 0xFF "waiting": client id -> until when, this server's ms).
-- ARGV[1] the attempt's token, ARGV[2] the client's id, ARGV[3] for how long the client still wants the lock, ms;
-- ARGV[4 ..] when given, the channel of each key, on which a deletion is published where another client waits for
-- the key (a final clean-up; as release.lua, nothing is published where nobody waits).
-- Deletes each key that still holds the token. Where a key is held by another token, records that this client
-- waits for it (never shortening an earlier record of it), so that a holder of another client hands it over
-- within its own process only while nobody else waits (handoff.lua). Returns 1 when every key held the token.
if redis.replicate_commands then redis.replicate_commands() end
local n = #KEYS / 2
local wants = tonumber(ARGV[3])
local until_ms = nil
local all = 1
for i = 1, n do
    local value = redis.call('get', KEYS[i])
    if value == ARGV[1] then
        redis.call('del', KEYS[i])
        if ARGV[3 + i] and redis.call('exists', KEYS[n + i]) == 1 then
            redis.pcall('publish', ARGV[3 + i], ARGV[1]) -- pcall: an ACL may forbid the channel
        end
    else
        all = 0
        if value then
            if not until_ms then
                local time = redis.call('time')
                until_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + wants
            end
            local waiting = KEYS[n + i]
            local before = tonumber(redis.call('hget', waiting, ARGV[2]))
            if not before or before < until_ms then
                redis.call('hset', waiting, ARGV[2], until_ms)
            end
            if redis.call('pttl', waiting) < wants then
                redis.call('pexpire', waiting, wants)
            end
        end
    end
end
return all
