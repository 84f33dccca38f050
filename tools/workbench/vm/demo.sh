# SPDX-License-Identifier: GPL-2.0
# The payload of "make demo", run by the guest's init.
P=/sys/kernel/security/kportreserve
for exe in /usr/sbin/nginx /usr/sbin/avahi-daemon /opt/app/bin/server \
	   /usr/local/bin/intruder; do
	mkdir -p "${exe%/*}"
	cp /opt/kpr/demo-bind "$exe"
done
stat_of() { grep "^$1 " $P/stats | cut -d' ' -f2; }

echo
echo "== kportreserve demo =="
echo "The kernel booted with kportreserve in its lsm= list:"
echo "    $(cat /sys/kernel/security/lsm)"
echo
echo "init loaded /etc/kportreserve/policy into $P/policy;"
echo "reading the file back gives the policy in force:"
sed 's/^/    /' $P/policy
echo
echo "1. The programs the policy names bind their ports:"
/usr/sbin/nginx 80
/usr/sbin/nginx 443
/usr/sbin/avahi-daemon 5353 udp
/opt/app/bin/server 8042 udp
echo
echo "2. Any other program gets EADDRINUSE, as if the port were taken:"
/usr/local/bin/intruder 80
/usr/local/bin/intruder 8099 tcp
/usr/local/bin/intruder 5353 udp
echo
echo "3. Ports without a rule, and the other protocol of a /tcp rule, are free:"
/usr/local/bin/intruder 9090
/usr/local/bin/intruder 80 udp
echo
echo "4. The kernel logged each refusal:"
dmesg | grep 'kportreserve: denied' | sed 's/^\(\[[^]]*\] \)*/    /'
echo
echo "5. The stats count binds to reserved ports only:"
sed 's/^/    /' $P/stats
echo "   (4 allowed, 3 denied; the binds to 9090 and 80/udp cost one bit test each)"
echo
echo "6. A new policy replaces the old one at once when the file is closed:"
echo "9090/tcp /usr/local/bin/intruder" >$P/policy
echo "    # echo '9090/tcp /usr/local/bin/intruder' > $P/policy"
/usr/sbin/nginx 80
/usr/sbin/nginx 9090
/usr/local/bin/intruder 9090
echo
echo "7. A bad line is refused with its line number, and the policy in force stays:"
printf '80/tcp /usr/sbin/nginx\n99999/tcp /usr/sbin/nginx\n' >$P/policy 2>/dev/null ||
	echo "    write: Invalid argument"
dmesg | grep 'kportreserve: policy line' | tail -n 1 | sed 's/^\(\[[^]]*\] \)*/    /'
sed 's/^/    policy: /' $P/policy
echo
[ "$(stat_of denied)" -ge 4 ] && [ "$(stat_of allowed)" -ge 5 ] || exit 1
echo "The demo is over; the VM powers off."
