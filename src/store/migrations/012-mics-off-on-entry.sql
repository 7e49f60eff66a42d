-- A room's "microphones off on entry": arrivals start with the microphone off (they may turn it
-- on). Rooms made before it keep what they did (off); new rooms get it by the instance's default.
ALTER TABLE rooms ADD COLUMN mics_off_on_entry INTEGER NOT NULL DEFAULT 0 CHECK (mics_off_on_entry IN (0, 1));
