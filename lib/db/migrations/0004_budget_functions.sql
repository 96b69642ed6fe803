-- Custom SQL migration file, put your code below! --
-- The shared rate budget (lib/budget/postgres-store.ts). A reservation is one function call, so it costs one round
-- trip and runs as one transaction. drizzle-kit does not track functions, so they live in this hand-written migration.

-- Removes reservations that have left their key's window and closures that have ended, for keys nobody reserves any
-- more (keys in use are pruned by budget_try_reserve itself). SKIP LOCKED: rows a reservation is deleting right now
-- are left to it, so a sweep never waits on, or deadlocks with, a reservation.
CREATE FUNCTION "budget_sweep"(p_now timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  removed integer;
BEGIN
  DELETE FROM budget_reservations WHERE id IN (
    SELECT r.id FROM budget_reservations r
    WHERE r.at <= p_now - r.window_ms * interval '1 millisecond'
    LIMIT 5000 FOR UPDATE SKIP LOCKED);
  GET DIAGNOSTICS removed = ROW_COUNT;
  DELETE FROM budget_closures WHERE key IN (
    SELECT c.key FROM budget_closures c WHERE c.until <= p_now FOR UPDATE SKIP LOCKED);
  RETURN removed;
END;
$$;
--> statement-breakpoint
-- p_keys: [{"key": text, "limit": int, "windowMs": int}], keys distinct. Answers ok (one reservation recorded per key),
-- or the key that blocks longest with when it frees; times as epoch milliseconds of the database's clock.
-- p_now replaces the database's clock (tests only).
CREATE FUNCTION "budget_try_reserve"(p_keys jsonb, p_now timestamptz DEFAULT NULL, p_sweep_chance float8 DEFAULT 0.004)
RETURNS TABLE ("ok" boolean, "now_ms" float8, "blocked_key" text, "next_slot_ms" float8, "reason" text)
LANGUAGE plpgsql AS $$
DECLARE
  lock_id bigint;
  t timestamptz;
  k record;
  used integer;
  full_until timestamptz;
  closed_until timestamptz;
  blocked_until timestamptz;
  latest timestamptz;
BEGIN
  -- Every instance takes the locks in one order, so overlapping reservations queue instead of deadlocking. Sorted by
  -- the lock id itself rather than the key: two keys may hash alike.
  FOR lock_id IN SELECT DISTINCT hashtextextended(e->>'key', 0) FROM jsonb_array_elements(p_keys) e ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(lock_id);
  END LOOP;
  -- Read once the locks are held (in READ COMMITTED each statement below also sees what the previous holder
  -- committed). Milliseconds, like the column, so what is compared is what is stored.
  t := date_trunc('milliseconds', coalesce(p_now, clock_timestamp()));
  now_ms := extract(epoch FROM t) * 1000;
  FOR k IN
    SELECT e->>'key' AS key, (e->>'limit')::integer AS lim, (e->>'windowMs')::integer * interval '1 millisecond' AS win
    FROM jsonb_array_elements(p_keys) e
  LOOP
    DELETE FROM budget_reservations r WHERE r.key = k.key AND r.at <= t - k.win;
    -- No upper bound on `at`: a row from a clock that has since stepped back still counts, which errs on the safe side.
    SELECT count(*) INTO used FROM budget_reservations r WHERE r.key = k.key AND r.at > t - k.win;
    full_until := NULL;
    IF used >= k.lim THEN
      -- A slot frees when the (used - limit + 1)-th oldest reservation leaves the window.
      SELECT r.at + k.win INTO full_until FROM budget_reservations r
      WHERE r.key = k.key AND r.at > t - k.win ORDER BY r.at OFFSET used - k.lim LIMIT 1;
    END IF;
    SELECT c.until INTO closed_until FROM budget_closures c WHERE c.key = k.key AND c.until > t;
    blocked_until := greatest(full_until, closed_until);
    IF blocked_until IS NOT NULL AND (latest IS NULL OR blocked_until > latest) THEN
      latest := blocked_until;
      blocked_key := k.key;
      reason := CASE WHEN closed_until IS NOT NULL AND closed_until >= blocked_until THEN 'closed' ELSE 'full' END;
    END IF;
  END LOOP;
  ok := latest IS NULL;
  IF ok THEN
    INSERT INTO budget_reservations (key, at, window_ms)
    SELECT e->>'key', t, (e->>'windowMs')::integer FROM jsonb_array_elements(p_keys) e;
  ELSE
    next_slot_ms := extract(epoch FROM latest) * 1000;
  END IF;
  IF random() < p_sweep_chance THEN
    PERFORM budget_sweep(t);
  END IF;
  RETURN NEXT;
END;
$$;
