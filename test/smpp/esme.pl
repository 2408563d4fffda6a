#!/usr/bin/perl
# An ESME the gateway's authors did not write: Debian's Net::SMPP (libnet-smpp-perl). Binds as
# transceiver, submits one SMS asking for a delivery receipt, and waits for that receipt,
# printing one line for each step: bound, submitted <id>, receipt <fields> text=<receipt text>.
use strict;
use warnings;
use Net::SMPP;

my ($host, $port, $system_id, $password, $destination, $text) = @ARGV;
$| = 1;
my ($smpp, $resp) = Net::SMPP->new_transceiver($host, port => $port, system_id => $system_id, password => $password, smpp_version => 0x34, timeout => 10);
die "no connection\n" unless $smpp;
die "bind refused: status $resp->{status}\n" if $resp->{status} != 0;
print "bound\n";

my $submit = $smpp->submit_sm(
    source_addr         => 'PerlShop',
    destination_addr    => $destination,
    dest_addr_ton       => 1,
    short_message       => $text,
    registered_delivery => 1,
);
die "submit refused: status $submit->{status}\n" if $submit->{status} != 0;
print "submitted $submit->{message_id}\n";

local $SIG{ALRM} = sub { die "no receipt in time\n" };
alarm 20;
while (my $pdu = $smpp->read_pdu()) {
    if ($pdu->{cmd} == 0x00000015) {    # enquire_link
        $smpp->enquire_link_resp(seq => $pdu->{seq});
        next;
    }
    next unless $pdu->{cmd} == 0x00000005;    # deliver_sm
    $smpp->deliver_sm_resp(seq => $pdu->{seq}, message_id => '');
    next unless $pdu->{esm_class} & 0x04;
    my $state = defined $pdu->{message_state} ? unpack('C', $pdu->{message_state}) : -1;
    my $receipted = defined $pdu->{receipted_message_id} ? $pdu->{receipted_message_id} : '';
    $receipted =~ s/\0$//;
    print "receipt receipted_message_id=$receipted message_state=$state text=$pdu->{short_message}\n";
    last;
}
alarm 0;
$smpp->unbind();
