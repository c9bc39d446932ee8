#!/bin/sh
# serve token add --token-file: the token written for the user, mode 0600,
# never over an existing file or through a link; the token it wrote is the
# one the store has.
. "$(dirname "$0")/../lib.sh"
db=$T/server.db

check token_file_written "$TM" serve token add pi --token-file "$T/pi.token" --db "$db"
check_eq token_file_mode "$(stat -c %a "$T/pi.token")" 600
check token_file_holds_token grep -qE '^tm_[A-Za-z0-9_-]+$' "$T/pi.token"
check_eq token_file_listed "$("$TM" serve token list --db "$db" | awk '{print $1, $2}')" "write pi"
check_fails token_file_not_overwritten "exists: not overwritten" \
	"$TM" serve token add pi2 --token-file "$T/pi.token" --db "$db"
ln -s "$T/elsewhere" "$T/link.token"
check_fails token_file_not_through_link "cannot create token file" \
	"$TM" serve token add pi3 --token-file "$T/link.token" --db "$db"
check_eq token_file_no_target_created "$(ls "$T/elsewhere" 2>&1 | grep -c 'No such')" 1
# a token whose file could not be written is not left in the store
check_eq token_file_failed_not_added "$("$TM" serve token list --db "$db" | awk '{print $2}' | tr '\n' ' ')" "pi "
check_fails token_file_only_with_add "goes with 'add'" "$TM" serve token list --token-file "$T/x" --db "$db"
finish
