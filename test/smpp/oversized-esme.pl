#!/usr/bin/perl
# An ESME the gateway's authors did not write (Debian's Net::SMPP) sending text far past what an
# SMS holds: one submit_sm whose message_payload has <octets> octets, then the <parts> parts of
# one SAR-concatenated message, each that long. Prints one line per answer: "whole <status>",
# "part <n> <status>", then "done".
use strict;
use warnings;
use Net::SMPP;

my ($host, $port, $system_id, $password, $destination, $octets, $parts) = @ARGV;
$| = 1;
local $SIG{ALRM} = sub { die "no answer in time\n" };
alarm 20;
my ($smpp, $resp) = Net::SMPP->new_transmitter($host, port => $port, system_id => $system_id, password => $password, smpp_version => 0x34, timeout => 10);
die "no connection\n" unless $smpp;
die "bind refused: status $resp->{status}\n" if $resp->{status} != 0;

my $text = 'A' x $octets;
my $whole = $smpp->submit_sm(destination_addr => $destination, dest_addr_ton => 1, short_message => '', message_payload => $text);
print "whole $whole->{status}\n";
for my $n (1 .. $parts) {
    my $part = $smpp->submit_sm(
        destination_addr   => $destination,
        dest_addr_ton      => 1,
        short_message      => '',
        message_payload    => $text,
        sar_msg_ref_num    => pack('n', 7),
        sar_total_segments => pack('C', $parts),
        sar_segment_seqnum => pack('C', $n),
    );
    print "part $n $part->{status}\n";
}
alarm 0;
$smpp->unbind();
print "done\n";
