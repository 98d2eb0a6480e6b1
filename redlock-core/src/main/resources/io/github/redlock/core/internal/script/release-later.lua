-- Compare-and-shorten, one node: each of KEYS that still holds this client's token ARGV[1] is left to expire in
-- at most ARGV[2] ms (never later than it would have: a key with less left keeps what it has). Its value becomes
-- the token followed by ':released', a value no lease has: the lock stays taken, but no extension of this lease
-- that arrives afterwards lengthens it again, and a repeat of this release changes nothing. A key with no time
-- left (PTTL 0: its last millisecond or, before Redis 7.2, where PTTL reads the clock but the script sees keys as
-- they were when it started, an expiry passed while it ran) is deleted, as any PX would lengthen it. Nothing is
-- published: waiters find the lock free when they next try. Returns 1 when every key held the token, else 0.
local keep = tonumber(ARGV[2])
local all = 1
for i = 1, #KEYS do
    if redis.call('get', KEYS[i]) == ARGV[1] then
        local left = redis.call('pttl', KEYS[i])
        if left > 0 or left == -1 then -- -1: no expiry, which no lock sets; ARGV[2] shortens it too
            local px = keep
            if left > 0 and left < keep then
                px = left
            end
            redis.call('set', KEYS[i], ARGV[1] .. ':released', 'PX', px)
        else -- 0, or -2 (gone): ended now, never set again
            redis.call('del', KEYS[i])
        end
    else
        all = 0
    end
end
return all
