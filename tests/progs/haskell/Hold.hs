-- Keeps N Ints in a strict Data.Map live across major GCs (performMajorGC),
-- then prints the RTS's own live-bytes figure and its count of GCs so far
-- (GHC.Stats; run with +RTS -T or -S), and exits normally.
import qualified Data.Map.Strict as M
import System.Environment (getArgs)
import System.Mem (performMajorGC)
import GHC.Stats

main :: IO ()
main = do
  [n] <- map read <$> getArgs
  let m = M.fromList [(i, i) | i <- [1 .. n :: Int]]
  print (M.size m)
  performMajorGC
  performMajorGC
  s <- getRTSStats
  putStrLn ("max_live_bytes " ++ show (max_live_bytes s) ++ " gcdetails_live_bytes " ++ show (gcdetails_live_bytes (gc s)) ++ " gcs " ++ show (gcs s))
  print (M.foldl' (+) 0 m)
